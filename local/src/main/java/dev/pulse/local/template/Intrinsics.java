/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.local.template;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates the CloudFormation intrinsic functions template.yaml uses ({@link #SUPPORTED}) over a long-form tree (as
 * {@link CfnYaml} produces it, but the long forms users write are accepted too). Any other function is refused with
 * an error naming it rather than passed on unevaluated. Only the branches actually taken are evaluated, so
 * {@link Bindings} is called for exactly the resources a resolved value refers to.
 *
 * <p>{@link #resolve} returns Java {@code null} for {@code AWS::NoValue}; objects and lists drop such entries, as
 * CloudFormation removes the property.
 */
final class Intrinsics {

    static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    /** The functions evaluated: those template.yaml uses. */
    static final List<String> SUPPORTED = List.of(
            "Ref",
            "Fn::GetAtt",
            "Fn::Sub",
            "Fn::If",
            "Fn::Equals",
            "Fn::Not",
            "Fn::FindInMap",
            "Fn::Join",
            "Fn::Split",
            "Fn::Select");

    private final SamTemplate template;
    private final Map<String, JsonNode> parameters;
    private final PseudoParameters pseudo;
    private final Bindings resources;
    private final Map<String, Boolean> conditions;
    private final Set<String> evaluating;

    /** Evaluates every condition at once, so a broken one fails {@code resolve} rather than a later lookup. */
    Intrinsics(SamTemplate template, Map<String, JsonNode> parameters, Bindings bindings) {
        this(template, parameters, bindings.pseudo(), bindings, new HashMap<>(), new LinkedHashSet<>());
        template.conditionNames().forEach(this::condition);
    }

    private Intrinsics(
            SamTemplate template,
            Map<String, JsonNode> parameters,
            PseudoParameters pseudo,
            Bindings resources,
            Map<String, Boolean> conditions,
            Set<String> evaluating) {
        this.template = template;
        this.parameters = parameters;
        this.pseudo = pseudo;
        this.resources = resources;
        this.conditions = conditions;
        this.evaluating = evaluating;
    }

    PseudoParameters pseudo() {
        return pseudo;
    }

    /**
     * A view where {@code Ref} and {@code Fn::GetAtt} to a resource give its logical id (and {@code Id.Attr}): for
     * settings that name a resource of the template ({@code Layers}, {@code ApiId}) rather than need its value.
     */
    Intrinsics logicalIds() {
        return new Intrinsics(
                template,
                parameters,
                pseudo,
                new Bindings() {
                    @Override
                    public String ref(String logicalId) {
                        return logicalId;
                    }

                    @Override
                    public String getAtt(String logicalId, String attribute) {
                        return logicalId + "." + attribute;
                    }

                    @Override
                    public PseudoParameters pseudo() {
                        return pseudo;
                    }
                },
                conditions,
                evaluating);
    }

    /** A resolved copy of {@code node}, or null when it resolves to {@code AWS::NoValue}. */
    JsonNode resolve(JsonNode node) {
        if (node.isObject()) {
            if (isIntrinsic(node)) {
                var call = node.properties().iterator().next();
                return function(call.getKey(), call.getValue());
            }
            ObjectNode out = NODES.objectNode();
            for (var field : node.properties()) {
                JsonNode value = resolve(field.getValue());
                if (value != null) {
                    out.set(field.getKey(), value);
                }
            }
            return out;
        }
        if (node.isArray()) {
            ArrayNode out = NODES.arrayNode();
            for (JsonNode element : node) {
                JsonNode value = resolve(element);
                if (value != null) {
                    out.add(value);
                }
            }
            return out;
        }
        return node; // scalars are immutable
    }

    /** The value of condition {@code name} of the Conditions section. */
    boolean condition(String name) {
        Boolean known = conditions.get(name);
        if (known != null) {
            return known;
        }
        JsonNode definition = template.conditionDefinition(name);
        if (definition == null) {
            throw new IllegalArgumentException(
                    "unknown condition '" + name + "'; the template's conditions: " + template.conditionNames());
        }
        if (!evaluating.add(name)) {
            throw new IllegalArgumentException("condition '" + name + "' depends on itself: " + evaluating);
        }
        // CloudFormation evaluates conditions before it creates anything: they may use parameters only.
        Intrinsics parametersOnly = new Intrinsics(
                template,
                parameters,
                pseudo,
                new Bindings() {
                    @Override
                    public String ref(String logicalId) {
                        throw notInCondition(name, logicalId);
                    }

                    @Override
                    public String getAtt(String logicalId, String attribute) {
                        throw notInCondition(name, logicalId);
                    }

                    @Override
                    public PseudoParameters pseudo() {
                        return pseudo;
                    }
                },
                conditions,
                evaluating);
        boolean value = parametersOnly.bool(definition, "condition " + name);
        evaluating.remove(name);
        conditions.put(name, value);
        return value;
    }

    /** A single-key object whose key is {@code Ref} or {@code Fn::*}. */
    static boolean isIntrinsic(JsonNode node) {
        if (!node.isObject() || node.size() != 1) {
            return false;
        }
        String key = node.properties().iterator().next().getKey();
        return key.equals("Ref") || key.startsWith("Fn::");
    }

    /** {@code A.B.C} as {@code ["A", "B.C"]}: attribute names may contain dots, logical ids may not. */
    static ArrayNode splitGetAtt(String dotted) {
        int dot = dotted.indexOf('.');
        if (dot <= 0 || dot == dotted.length() - 1) {
            throw new IllegalArgumentException("Fn::GetAtt needs LogicalId.Attribute, got '" + dotted + "'");
        }
        return NODES.arrayNode().add(dotted.substring(0, dot)).add(dotted.substring(dot + 1));
    }

    /** A scalar as the string CloudFormation passes on: numbers without a trailing {@code .0}, null as empty. */
    static String text(JsonNode value, String what) {
        if (value == null) {
            throw new IllegalArgumentException(what + " resolves to AWS::NoValue where a value is needed");
        }
        if (value.isTextual()) {
            return value.textValue();
        }
        if (value.isIntegralNumber() || value.isBoolean()) {
            return value.asText();
        }
        if (value.isNumber()) {
            BigDecimal decimal = value.decimalValue().stripTrailingZeros();
            return decimal.scale() < 0 ? decimal.toBigInteger().toString() : decimal.toPlainString();
        }
        if (value.isNull()) {
            return "";
        }
        throw new IllegalArgumentException(what + " must be a string or number, got " + value);
    }

    private JsonNode function(String name, JsonNode arg) {
        return switch (name) {
            case "Ref" -> ref(literal(arg, "Ref"));
            case "Fn::GetAtt" -> getAtt(arg);
            case "Fn::Sub" -> NODES.textNode(sub(arg));
            case "Fn::If" -> {
                List<JsonNode> args = args(name, arg, 3, 3);
                yield condition(literal(args.get(0), "Fn::If's condition"))
                        ? resolve(args.get(1))
                        : resolve(args.get(2));
            }
            case "Fn::Equals" -> {
                List<JsonNode> args = args(name, arg, 2, 2);
                yield NODES.booleanNode(same(resolve(args.get(0)), resolve(args.get(1))));
            }
            case "Fn::Not" -> NODES.booleanNode(!bool(args(name, arg, 1, 1).get(0), name));
            case "Fn::FindInMap" -> {
                List<JsonNode> args = args(name, arg, 3, 3);
                String map = text(resolve(args.get(0)), name);
                String top = text(resolve(args.get(1)), name);
                String second = text(resolve(args.get(2)), name);
                JsonNode value = template.mapping(map).path(top).path(second);
                if (value.isMissingNode()) {
                    throw new IllegalArgumentException(
                            "Fn::FindInMap: Mappings has no " + map + "." + top + "." + second);
                }
                yield resolve(value);
            }
            case "Fn::Join" -> {
                List<JsonNode> args = args(name, arg, 2, 2);
                String delimiter = text(resolve(args.get(0)), "Fn::Join's delimiter");
                JsonNode list = resolve(args.get(1));
                if (list == null || !list.isArray()) {
                    throw new IllegalArgumentException("Fn::Join needs a list, got " + list);
                }
                List<String> parts = new ArrayList<>();
                list.forEach(e -> parts.add(text(e, "an element of Fn::Join's list")));
                yield NODES.textNode(String.join(delimiter, parts));
            }
            case "Fn::Split" -> {
                List<JsonNode> args = args(name, arg, 2, 2);
                String delimiter = text(resolve(args.get(0)), "Fn::Split's delimiter");
                if (delimiter.isEmpty()) {
                    throw new IllegalArgumentException("Fn::Split's delimiter must not be empty");
                }
                ArrayNode out = NODES.arrayNode();
                String source = text(resolve(args.get(1)), "Fn::Split's string");
                for (String part : source.split(java.util.regex.Pattern.quote(delimiter), -1)) {
                    out.add(part);
                }
                yield out;
            }
            case "Fn::Select" -> {
                List<JsonNode> args = args(name, arg, 2, 2);
                int index = Integer.parseInt(text(resolve(args.get(0)), "Fn::Select's index"));
                JsonNode list = resolve(args.get(1));
                if (list == null || !list.isArray() || index < 0 || index >= list.size()) {
                    throw new IllegalArgumentException("Fn::Select: index " + index + " is outside " + list);
                }
                yield list.get(index);
            }
            default ->
                throw new IllegalArgumentException("unsupported intrinsic function " + name + " (argument " + arg
                        + "): the local stack evaluates only the functions template.yaml uses, " + SUPPORTED);
        };
    }

    private JsonNode ref(String name) {
        if (name.startsWith("AWS::")) {
            return pseudoParameter(name);
        }
        JsonNode parameter = parameters.get(name);
        if (parameter != null) {
            return parameter;
        }
        if (template.hasResource(name)) {
            return NODES.textNode(bound(resources.ref(name), name));
        }
        throw new IllegalArgumentException(
                "Ref to unknown name '" + name + "': not a parameter, pseudo parameter or resource of the template");
    }

    private JsonNode pseudoParameter(String name) {
        return switch (name) {
            case "AWS::Region" -> NODES.textNode(pseudo.region());
            case "AWS::AccountId" -> NODES.textNode(pseudo.accountId());
            case "AWS::StackName" -> NODES.textNode(pseudo.stackName());
            case "AWS::Partition" -> NODES.textNode(pseudo.partition());
            case "AWS::URLSuffix" -> NODES.textNode(pseudo.urlSuffix());
            case "AWS::NoValue" -> null;
            default ->
                throw new IllegalArgumentException("Ref to unsupported pseudo parameter '" + name + "': the local"
                        + " stack knows only those template.yaml uses, AWS::Region, AWS::AccountId, AWS::StackName,"
                        + " AWS::Partition, AWS::URLSuffix and AWS::NoValue");
        };
    }

    private JsonNode getAtt(JsonNode arg) {
        List<JsonNode> args = args("Fn::GetAtt", arg.isTextual() ? splitGetAtt(arg.textValue()) : arg, 2, 2);
        String logicalId = literal(args.get(0), "Fn::GetAtt's logical id");
        String attribute = text(resolve(args.get(1)), "Fn::GetAtt's attribute"); // may be a Ref
        return NODES.textNode(getAtt(logicalId, attribute));
    }

    private String getAtt(String logicalId, String attribute) {
        if (!template.hasResource(logicalId)) {
            throw new IllegalArgumentException("Fn::GetAtt to unknown resource '" + logicalId + "'");
        }
        return bound(resources.getAtt(logicalId, attribute), logicalId + "." + attribute);
    }

    /** {@code Fn::Sub}: a string, or [string, {name: value}]; {@code ${!Literal}} stands for {@code ${Literal}}. */
    private String sub(JsonNode arg) {
        List<JsonNode> args = arg.isTextual() ? List.of(arg) : args("Fn::Sub", arg, 1, 2);
        String template = literal(args.get(0), "Fn::Sub's string");
        JsonNode variables = args.size() > 1 ? args.get(1) : NODES.objectNode();
        StringBuilder out = new StringBuilder();
        int from = 0;
        for (int start; (start = template.indexOf("${", from)) >= 0; ) {
            int end = template.indexOf('}', start);
            if (end < 0) {
                throw new IllegalArgumentException("Fn::Sub: unterminated ${ in '" + template + "'");
            }
            String name = template.substring(start + 2, end);
            out.append(template, from, start);
            if (name.startsWith("!")) {
                out.append("${").append(name, 1, name.length()).append('}');
            } else {
                out.append(subVariable(name.strip(), variables));
            }
            from = end + 1;
        }
        return out.append(template.substring(from)).toString();
    }

    private String subVariable(String name, JsonNode variables) {
        String what = "${" + name + "} of Fn::Sub";
        if (variables.has(name)) {
            return text(resolve(variables.get(name)), what); // only the variables the string uses are resolved
        }
        if (!name.startsWith("AWS::") && name.contains(".")) {
            ArrayNode att = splitGetAtt(name);
            return getAtt(att.get(0).textValue(), att.get(1).textValue());
        }
        return text(ref(name), what);
    }

    /** The operand of a condition function: anything that resolves to a boolean ({@code Fn::Equals}, {@code Fn::Not}). */
    private boolean bool(JsonNode node, String what) {
        JsonNode value = resolve(node);
        if (value == null || !value.isBoolean()) {
            throw new IllegalArgumentException(what + " needs a condition (Fn::Equals or Fn::Not), got " + node);
        }
        return value.booleanValue();
    }

    /** Fn::Equals compares values as CloudFormation does after parameter substitution: {@code "1"} equals {@code 1}. */
    private static boolean same(JsonNode a, JsonNode b) {
        if (a == null || b == null) {
            return a == null && b == null;
        }
        if (a.isValueNode() && b.isValueNode()) {
            return text(a, "Fn::Equals").equals(text(b, "Fn::Equals"));
        }
        return a.equals(b);
    }

    private static List<JsonNode> args(String function, JsonNode arg, int min, int max) {
        if (!arg.isArray() || arg.size() < min || arg.size() > max) {
            String count = min == max ? String.valueOf(min) : min + " to " + max;
            throw new IllegalArgumentException(function + " takes a list of " + count + " arguments, got " + arg);
        }
        return arg.valueStream().toList();
    }

    /** A literal string argument: CloudFormation allows no function in these places. */
    private static String literal(JsonNode node, String what) {
        if (!node.isTextual()) {
            throw new IllegalArgumentException(what + " must be a literal string, got " + node);
        }
        return node.textValue();
    }

    static int integer(JsonNode value, String what) {
        try {
            return new BigDecimal(text(value, what).strip()).intValueExact();
        } catch (ArithmeticException | NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be an integer, got " + value, e);
        }
    }

    private static String bound(String value, String what) {
        if (value == null) {
            throw new IllegalStateException("the local stack has no value for " + what + " (not created yet?)");
        }
        return value;
    }

    private static IllegalArgumentException notInCondition(String condition, String logicalId) {
        return new IllegalArgumentException("condition '" + condition + "' refers to resource '" + logicalId
                + "'; conditions may use parameters only");
    }
}
