package dev.pulse.local.esm;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One {@code FilterCriteria.Filters[].Pattern} of an event source mapping, compiled once and matched against
 * each record's {@link StreamRecord#filterView()}.
 *
 * <p>Lambda uses the EventBridge pattern syntax (Lambda event filtering,
 * https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html; operators:
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-create-pattern-operators.html and
 * https://docs.aws.amazon.com/eventbridge/latest/userguide/eb-event-patterns-content-based-filtering.html):
 * <ul>
 *   <li>keys are AND-ed; a key's array of values is OR-ed; an object value descends into the record;</li>
 *   <li>exact values ({@code "x"}, numbers, booleans, {@code null}, {@code ""}); numbers compare by their
 *       string form (Lambda: "300, 300.0, and 3.0e2 are not considered equal");</li>
 *   <li>{@code prefix} and {@code suffix} (each also as {@code {"equals-ignore-case": s}}),
 *       {@code equals-ignore-case}, {@code anything-but} (a value, a list, or prefix / suffix /
 *       equals-ignore-case), {@code numeric} (one or two comparisons), {@code exists};</li>
 *   <li>{@code "$or": [pattern, ...]} at any object level;</li>
 *   <li>a record field that is an array matches when any element matches;</li>
 *   <li>only leaves exist: {@code exists} on a field holding an object is false, as EventBridge says
 *       ("Exists matching only works on leaf nodes").</li>
 * </ul>
 * Not supported (rejected when parsed): {@code wildcard}, {@code cidr}. For Kinesis, {@code data} is matched
 * as parsed JSON; a record whose data is not JSON never matches a pattern on {@code data} fields, which is
 * Lambda's "drops the record" rule.
 */
public final class FilterPattern {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> NUMERIC_OPS = Set.of("=", "<", "<=", ">", ">=");

    private final String source;
    private final ObjectRule root;

    private FilterPattern(String source, ObjectRule root) {
        this.source = source;
        this.root = root;
    }

    /**
     * Compiles a pattern.
     *
     * @throws IllegalArgumentException when the pattern is not JSON, not an object, or uses an operator wrongly;
     *                                  the message names the problem and where it is
     */
    public static FilterPattern parse(String json) {
        if (json == null || json.isBlank()) {
            throw new IllegalArgumentException("filter pattern is empty");
        }
        JsonNode tree;
        try {
            tree = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("filter pattern is not valid JSON: " + e.getOriginalMessage(), e);
        }
        if (tree == null || !tree.isObject()) {
            throw new IllegalArgumentException("filter pattern must be a JSON object: " + json);
        }
        return new FilterPattern(json, object(tree, ""));
    }

    /** True when {@code record} (a record's filter view) satisfies the pattern. */
    public boolean matches(JsonNode record) {
        return record != null && root.matches(record);
    }

    @Override
    public String toString() {
        return source;
    }

    // ---- compiled form ----

    /** A rule for one field; {@code value} is null when the record lacks the field. */
    private interface Rule {
        boolean matches(JsonNode value);
    }

    /** An object level: every field rule holds, and each {@code $or} has one alternative that holds. */
    private record ObjectRule(Map<String, Rule> fields, List<List<ObjectRule>> ors) implements Rule {
        @Override
        public boolean matches(JsonNode value) {
            if (value == null) {
                return false;
            }
            if (value.isArray()) {
                for (JsonNode element : value) {
                    if (matches(element)) {
                        return true;
                    }
                }
                return false;
            }
            if (!value.isObject()) {
                return false;
            }
            for (Map.Entry<String, Rule> field : fields.entrySet()) {
                JsonNode child = value.get(field.getKey());
                if (!field.getValue().matches(child)) {
                    return false;
                }
            }
            for (List<ObjectRule> alternatives : ors) {
                if (alternatives.stream().noneMatch(alternative -> alternative.matches(value))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** A leaf: the OR of its matchers over the field's value (or each element of an array value). */
    private record LeafRule(List<Matcher> matchers) implements Rule {
        @Override
        public boolean matches(JsonNode value) {
            List<JsonNode> values = leafValues(value);
            for (Matcher matcher : matchers) {
                if (matcher instanceof Exists exists) {
                    if (exists.expected() == !values.isEmpty()) {
                        return true;
                    }
                    continue;
                }
                for (JsonNode v : values) {
                    if (matcher.test(v)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** The scalar values at a field: none when it is missing or holds an object (not a leaf). */
        private static List<JsonNode> leafValues(JsonNode value) {
            if (value == null || value.isMissingNode() || value.isObject()) {
                return List.of();
            }
            if (!value.isArray()) {
                return List.of(value);
            }
            List<JsonNode> scalars = new ArrayList<>();
            value.forEach(element -> {
                if (element.isValueNode()) {
                    scalars.add(element);
                }
            });
            return scalars;
        }
    }

    /** A test on one scalar value. */
    private interface Matcher {
        boolean test(JsonNode value);
    }

    private record Exact(JsonNode expected) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            if (expected.isNull()) {
                return value.isNull();
            }
            if (expected.isNumber()) {
                // Lambda compares numbers by their string representation.
                return value.isNumber() && value.asText().equals(expected.asText());
            }
            if (expected.isBoolean()) {
                return value.isBoolean() && value.booleanValue() == expected.booleanValue();
            }
            return value.isTextual() && value.textValue().equals(expected.textValue());
        }
    }

    private record Prefix(String prefix, boolean ignoreCase) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            return value.isTextual() && value.textValue().regionMatches(ignoreCase, 0, prefix, 0, prefix.length());
        }
    }

    private record Suffix(String suffix, boolean ignoreCase) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            String s = value.isTextual() ? value.textValue() : null;
            return s != null && s.length() >= suffix.length()
                    && s.regionMatches(ignoreCase, s.length() - suffix.length(), suffix, 0, suffix.length());
        }
    }

    private record EqualsIgnoreCase(String expected) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            return value.isTextual() && value.textValue().equalsIgnoreCase(expected);
        }
    }

    /** {@code anything-but}: a present value that the inner matchers reject (string forms apply to strings only). */
    private record AnythingBut(List<Matcher> excluded, boolean stringsOnly) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            if (stringsOnly && !value.isTextual()) {
                return false;
            }
            return excluded.stream().noneMatch(m -> m.test(value));
        }
    }

    private record Numeric(List<String> ops, List<BigDecimal> operands) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            if (!value.isNumber()) {
                return false;
            }
            BigDecimal v = value.decimalValue();
            for (int i = 0; i < ops.size(); i++) {
                int c = v.compareTo(operands.get(i));
                boolean ok = switch (ops.get(i)) {
                    case "=" -> c == 0;
                    case "<" -> c < 0;
                    case "<=" -> c <= 0;
                    case ">" -> c > 0;
                    default -> c >= 0; // ">="
                };
                if (!ok) {
                    return false;
                }
            }
            return true;
        }
    }

    private record Exists(boolean expected) implements Matcher {
        @Override
        public boolean test(JsonNode value) {
            throw new UnsupportedOperationException("handled by LeafRule");
        }
    }

    // ---- compilation ----

    private static ObjectRule object(JsonNode node, String path) {
        if (node.isEmpty()) {
            throw new IllegalArgumentException("empty object at " + where(path) + " in filter pattern");
        }
        Map<String, Rule> fields = new LinkedHashMap<>();
        List<List<ObjectRule>> ors = new ArrayList<>();
        for (Map.Entry<String, JsonNode> field : node.properties()) {
            String name = field.getKey();
            String childPath = path.isEmpty() ? name : path + "." + name;
            JsonNode value = field.getValue();
            if (name.equals("$or")) {
                ors.add(alternatives(value, childPath));
            } else if (value.isObject()) {
                fields.put(name, object(value, childPath));
            } else if (value.isArray()) {
                fields.put(name, leaf(value, childPath));
            } else {
                throw new IllegalArgumentException("value of '" + childPath
                        + "' must be an array of values or an object, got " + value);
            }
        }
        return new ObjectRule(Map.copyOf(fields), List.copyOf(ors));
    }

    private static List<ObjectRule> alternatives(JsonNode value, String path) {
        if (!value.isArray() || value.size() < 2) {
            throw new IllegalArgumentException("'" + path + "' must be an array of at least two patterns");
        }
        List<ObjectRule> alternatives = new ArrayList<>();
        for (JsonNode alternative : value) {
            if (!alternative.isObject()) {
                throw new IllegalArgumentException("'" + path + "' alternatives must be objects, got " + alternative);
            }
            alternatives.add(object(alternative, path));
        }
        return List.copyOf(alternatives);
    }

    private static LeafRule leaf(JsonNode array, String path) {
        if (array.isEmpty()) {
            throw new IllegalArgumentException("empty array at '" + path + "' in filter pattern: it matches nothing");
        }
        List<Matcher> matchers = new ArrayList<>();
        for (JsonNode element : array) {
            if (element.isObject()) {
                matchers.add(operator(element, path));
            } else if (element.isValueNode()) {
                matchers.add(new Exact(element));
            } else {
                throw new IllegalArgumentException("nested array at '" + path + "' in filter pattern");
            }
        }
        return new LeafRule(List.copyOf(matchers));
    }

    private static Matcher operator(JsonNode op, String path) {
        if (op.size() != 1) {
            throw new IllegalArgumentException("operator object at '" + path + "' must have exactly one key: " + op);
        }
        Map.Entry<String, JsonNode> only = op.properties().iterator().next();
        String name = only.getKey();
        JsonNode arg = only.getValue();
        return switch (name) {
            case "prefix" -> affix(arg, path, name, false);
            case "suffix" -> affix(arg, path, name, true);
            case "equals-ignore-case" -> new EqualsIgnoreCase(text(arg, path, name));
            case "anything-but" -> anythingBut(arg, path);
            case "numeric" -> numeric(arg, path);
            case "exists" -> {
                if (!arg.isBoolean()) {
                    throw new IllegalArgumentException("'exists' at '" + path + "' takes true or false, got " + arg);
                }
                yield new Exists(arg.booleanValue());
            }
            default -> throw new IllegalArgumentException("unsupported filter operator '" + name + "' at '" + path + "'");
        };
    }

    /** {@code prefix} / {@code suffix}: a string, or {@code {"equals-ignore-case": string}}. */
    private static Matcher affix(JsonNode arg, String path, String name, boolean suffix) {
        boolean ignoreCase = false;
        JsonNode value = arg;
        if (arg.isObject() && arg.size() == 1 && arg.has("equals-ignore-case")) {
            ignoreCase = true;
            value = arg.get("equals-ignore-case");
        }
        String s = text(value, path, name);
        return suffix ? new Suffix(s, ignoreCase) : new Prefix(s, ignoreCase);
    }

    private static Matcher anythingBut(JsonNode arg, String path) {
        if (arg.isObject()) {
            // anything-but {prefix | suffix | equals-ignore-case}: applies to strings only.
            Matcher inner = operator(arg, path);
            if (inner instanceof Prefix || inner instanceof Suffix || inner instanceof EqualsIgnoreCase) {
                return new AnythingBut(List.of(inner), true);
            }
            throw new IllegalArgumentException("'anything-but' at '" + path
                    + "' takes a value, a list, prefix, suffix or equals-ignore-case, got " + arg);
        }
        List<Matcher> excluded = new ArrayList<>();
        for (JsonNode value : arg.isArray() ? arg : List.of(arg)) {
            if (!value.isTextual() && !value.isNumber()) {
                throw new IllegalArgumentException("'anything-but' at '" + path
                        + "' takes strings or numbers, got " + value);
            }
            excluded.add(new Exact(value));
        }
        if (excluded.isEmpty()) {
            throw new IllegalArgumentException("'anything-but' at '" + path + "' has an empty list");
        }
        return new AnythingBut(List.copyOf(excluded), false);
    }

    private static Matcher numeric(JsonNode arg, String path) {
        if (!arg.isArray() || (arg.size() != 2 && arg.size() != 4)) {
            throw new IllegalArgumentException("'numeric' at '" + path
                    + "' takes [op, number] or [op, number, op, number], got " + arg);
        }
        List<String> ops = new ArrayList<>();
        List<BigDecimal> operands = new ArrayList<>();
        for (int i = 0; i < arg.size(); i += 2) {
            JsonNode op = arg.get(i);
            JsonNode operand = arg.get(i + 1);
            if (!op.isTextual() || !NUMERIC_OPS.contains(op.textValue())) {
                throw new IllegalArgumentException("'numeric' at '" + path + "' has unknown comparison " + op
                        + " (expected one of " + NUMERIC_OPS + ")");
            }
            if (!operand.isNumber()) {
                throw new IllegalArgumentException("'numeric' at '" + path + "' compares with a non-number " + operand);
            }
            ops.add(op.textValue());
            operands.add(operand.decimalValue());
        }
        return new Numeric(List.copyOf(ops), List.copyOf(operands));
    }

    private static String text(JsonNode value, String path, String name) {
        if (!value.isTextual()) {
            throw new IllegalArgumentException("'" + name + "' at '" + path + "' takes a string, got " + value);
        }
        return value.textValue();
    }

    private static String where(String path) {
        return path.isEmpty() ? "the top level" : "'" + path + "'";
    }
}
