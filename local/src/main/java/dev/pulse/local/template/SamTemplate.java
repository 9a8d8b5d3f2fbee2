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
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A SAM template (template.yaml) as written: short-form tags turned into their long forms, nothing resolved. The
 * local stack reads handlers, settings and event source mappings from it through {@link #resolve}, so that the
 * template stays their single source of truth.
 */
public final class SamTemplate {

    private static final String SERVERLESS = "AWS::Serverless::";

    private final Path file;
    private final JsonNode root;

    private SamTemplate(Path file, JsonNode root) {
        this.file = file;
        this.root = root;
    }

    /**
     * Reads {@code file}.
     *
     * @throws IOException when it cannot be read, is not valid YAML (the message names the file, line and column)
     *                     or lacks the structure of a template (a Resources mapping whose entries have a Type)
     */
    public static SamTemplate load(Path file) throws IOException {
        Path absolute = file.toAbsolutePath().normalize();
        JsonNode root = CfnYaml.read(absolute);
        if (!root.isObject()) {
            throw new IOException(absolute + ": a template is a mapping, got " + root.getNodeType());
        }
        for (String section : List.of("Parameters", "Conditions", "Mappings", "Globals", "Resources")) {
            if (root.has(section) && !root.get(section).isObject()) {
                throw new IOException(absolute + ": " + section + " must be a mapping");
            }
        }
        if (root.path("Resources").isEmpty()) {
            throw new IOException(absolute + ": the template has no Resources");
        }
        for (var resource : root.get("Resources").properties()) {
            if (!resource.getValue().path("Type").isTextual()) {
                throw new IOException(absolute + ": resource " + resource.getKey() + " has no Type");
            }
        }
        for (var parameter : root.path("Parameters").properties()) {
            if (!parameter.getValue().isObject()) {
                throw new IOException(absolute + ": parameter " + parameter.getKey() + " must be a mapping");
            }
        }
        return new SamTemplate(absolute, root);
    }

    /** The absolute path the template was loaded from. */
    public Path file() {
        return file;
    }

    /** A copy of the whole resource (Type, Properties, Metadata, ...), intrinsics unresolved, Globals not merged. */
    public JsonNode resource(String logicalId) {
        JsonNode resource = root.get("Resources").get(logicalId);
        if (resource == null) {
            throw new IllegalArgumentException(
                    "no resource '" + logicalId + "' in " + file + "; resources: " + names(root.get("Resources")));
        }
        return resource.deepCopy();
    }

    /** Logical ids of the resources of {@code type} (such as {@code AWS::Serverless::Function}), in template order. */
    public List<String> resourceIds(String type) {
        List<String> ids = new ArrayList<>();
        for (var resource : root.get("Resources").properties()) {
            if (resource.getValue().get("Type").textValue().equals(type)) {
                ids.add(resource.getKey());
            }
        }
        return List.copyOf(ids);
    }

    /** Every parameter's Default as a string (lists joined with commas); parameters without one are absent. */
    public Map<String, String> parameterDefaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (var parameter : root.path("Parameters").properties()) {
            JsonNode value = parameter.getValue().get("Default");
            if (value != null) {
                String what = "Default of parameter " + parameter.getKey();
                defaults.put(
                        parameter.getKey(),
                        value.isArray()
                                ? String.join(
                                        ",",
                                        value.valueStream()
                                                .map(v -> Intrinsics.text(v, what))
                                                .toList())
                                : Intrinsics.text(value, what));
            }
        }
        return defaults;
    }

    /**
     * Resolves the template against parameter values, pseudo parameters, its conditions and {@code bindings}.
     * Parameters take their Default unless {@code parameterOverrides} names them; every value must satisfy the
     * parameter's AllowedValues, AllowedPattern, MinValue/MaxValue and MinLength/MaxLength. Conditions are evaluated
     * here; {@code bindings} is called later, only for the resources a requested value refers to.
     *
     * @throws IllegalArgumentException naming the parameter, for an override of an unknown parameter, a value that
     *                                  breaks a constraint or a parameter without Default nor override; or for a
     *                                  condition that cannot be evaluated
     */
    public Stack resolve(Map<String, String> parameterOverrides, Bindings bindings) {
        JsonNode declared = root.path("Parameters");
        Map<String, String> values = new LinkedHashMap<>(parameterDefaults());
        parameterOverrides.forEach((name, value) -> {
            if (!declared.has(name)) {
                throw new IllegalArgumentException(
                        "override of unknown parameter '" + name + "'; the template's parameters: " + names(declared));
            }
            if (value == null) {
                throw new IllegalArgumentException("override of parameter '" + name + "' is null");
            }
            values.put(name, value);
        });
        Map<String, JsonNode> refs = new LinkedHashMap<>();
        for (var parameter : declared.properties()) {
            String name = parameter.getKey();
            String value = values.get(name);
            if (value == null) {
                throw new IllegalArgumentException("parameter '" + name + "' has no Default: give it a value");
            }
            JsonNode definition = parameter.getValue();
            boolean list = isList(definition);
            List<String> items = list
                    ? Arrays.stream(value.split(",", -1)).map(String::strip).toList()
                    : List.of(value);
            items.forEach(item -> check(name, definition, item));
            // CloudFormation hands every parameter to Ref as a string (Number too), lists as lists of strings.
            if (list) {
                ArrayNode array = Intrinsics.NODES.arrayNode();
                items.forEach(array::add);
                refs.put(name, array);
            } else {
                refs.put(name, Intrinsics.NODES.textNode(value));
            }
        }
        return new Stack(this, Map.copyOf(values), new Intrinsics(this, Map.copyOf(refs), bindings));
    }

    Path directory() {
        return file.getParent();
    }

    boolean hasResource(String logicalId) {
        return root.get("Resources").has(logicalId);
    }

    String type(String logicalId) {
        return resource(logicalId).get("Type").textValue();
    }

    /**
     * The resource's Properties with the matching Globals section merged in by SAM's rules: for
     * {@code AWS::Serverless::Function} that is {@code Globals.Function}, and so on.
     */
    ObjectNode properties(String logicalId) {
        JsonNode resource = resource(logicalId);
        JsonNode own = resource.path("Properties");
        ObjectNode properties = own.isObject() ? (ObjectNode) own : Intrinsics.NODES.objectNode();
        String type = resource.get("Type").textValue();
        JsonNode globals =
                type.startsWith(SERVERLESS) ? root.path("Globals").path(type.substring(SERVERLESS.length())) : null;
        return globals != null && globals.isObject() ? (ObjectNode) merge(globals, properties) : properties;
    }

    List<String> conditionNames() {
        return names(root.path("Conditions"));
    }

    /** The definition of a condition, or null. */
    JsonNode conditionDefinition(String name) {
        return root.path("Conditions").get(name);
    }

    /** A map of the Mappings section (as used by Fn::FindInMap). */
    JsonNode mapping(String name) {
        JsonNode mapping = root.path("Mappings").get(name);
        if (mapping == null) {
            throw new IllegalArgumentException(
                    "Fn::FindInMap: no mapping '" + name + "'; Mappings: " + names(root.path("Mappings")));
        }
        return mapping;
    }

    /**
     * SAM's Globals rules: maps merge key by key with the resource winning, lists concatenate (Globals first), and
     * anything else, intrinsic functions included (SAM treats them as the primitives they resolve to), is taken from
     * the resource.
     */
    private static JsonNode merge(JsonNode global, JsonNode local) {
        if (global.isObject()
                && local.isObject()
                && !Intrinsics.isIntrinsic(global)
                && !Intrinsics.isIntrinsic(local)) {
            ObjectNode merged = global.deepCopy();
            for (var field : local.properties()) {
                JsonNode inherited = merged.get(field.getKey());
                merged.set(field.getKey(), inherited == null ? field.getValue() : merge(inherited, field.getValue()));
            }
            return merged;
        }
        if (global.isArray() && local.isArray()) {
            return global.<ArrayNode>deepCopy().addAll((ArrayNode) local);
        }
        return local;
    }

    private static boolean isList(JsonNode parameter) {
        String type = parameter.path("Type").asText("String");
        return type.equals("CommaDelimitedList") || type.startsWith("List<");
    }

    /** One value (one item of a list parameter) against the parameter's constraints. */
    private static void check(String name, JsonNode definition, String value) {
        String type = definition.path("Type").asText("String");
        String why = definition.has("ConstraintDescription")
                ? " (" + definition.get("ConstraintDescription").asText() + ")"
                : "";
        JsonNode allowed = definition.get("AllowedValues");
        if (allowed != null
                && allowed.valueStream().map(v -> Intrinsics.text(v, name)).noneMatch(value::equals)) {
            throw new IllegalArgumentException(
                    "parameter " + name + ": '" + value + "' is not one of " + allowed + why);
        }
        if (type.equals("Number") || type.equals("List<Number>")) {
            BigDecimal number;
            try {
                number = new BigDecimal(value.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("parameter " + name + ": '" + value + "' is not a number" + why, e);
            }
            if (definition.has("MinValue") && number.compareTo(bound(definition, "MinValue")) < 0) {
                throw new IllegalArgumentException("parameter " + name + ": " + value + " is below MinValue "
                        + definition.get("MinValue").asText() + why);
            }
            if (definition.has("MaxValue") && number.compareTo(bound(definition, "MaxValue")) > 0) {
                throw new IllegalArgumentException("parameter " + name + ": " + value + " is above MaxValue "
                        + definition.get("MaxValue").asText() + why);
            }
        }
        if (definition.has("AllowedPattern")
                && !Pattern.compile(definition.get("AllowedPattern").asText())
                        .matcher(value)
                        .matches()) {
            throw new IllegalArgumentException("parameter " + name + ": '" + value + "' does not match AllowedPattern "
                    + definition.get("AllowedPattern").asText() + why);
        }
        if (definition.has("MinLength")
                && value.length() < definition.get("MinLength").asInt()) {
            throw new IllegalArgumentException("parameter " + name + ": '" + value + "' is shorter than MinLength "
                    + definition.get("MinLength").asText() + why);
        }
        if (definition.has("MaxLength")
                && value.length() > definition.get("MaxLength").asInt()) {
            throw new IllegalArgumentException("parameter " + name + ": '" + value + "' is longer than MaxLength "
                    + definition.get("MaxLength").asText() + why);
        }
    }

    /** MinValue or MaxValue, written as a number or a string. */
    private static BigDecimal bound(JsonNode definition, String key) {
        return new BigDecimal(Intrinsics.text(definition.get(key), key).strip());
    }

    private static List<String> names(JsonNode section) {
        List<String> names = new ArrayList<>();
        section.properties().forEach(e -> names.add(e.getKey()));
        return names;
    }
}
