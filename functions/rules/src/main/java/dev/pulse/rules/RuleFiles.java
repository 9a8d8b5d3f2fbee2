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
package dev.pulse.rules;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.rules.internal.Durations;
import dev.pulse.rules.internal.GoTemplate;
import dev.pulse.rules.internal.Names;
import dev.pulse.rules.internal.TemplateException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads rule files in Prometheus' format (https://prometheus.io/docs/prometheus/latest/configuration/recording_rules/)
 * and validates them as {@code promtool check rules} does (rulefmt of Prometheus 2.42), plus what Pulse needs:
 * unknown fields, duplicate keys and duplicate group names, durations, label and annotation names, record names,
 * the expression through the query service's own PromQL parser, and every label and annotation template through
 * Pulse's template subset. The first problem is thrown, naming the file, the group, the rule and the reason.
 *
 * <p>Bounded: a file of at most {@link #MAX_FILE_BYTES}, at most {@link #MAX_RULES} rules in all (what one evaluator
 * invocation evaluates each minute), expressions as the query API bounds them (16,384 characters, 64 levels),
 * templates as {@link GoTemplate} bounds them.
 */
public final class RuleFiles {

    public static final int MAX_FILE_BYTES = 1 << 20;
    public static final int MAX_RULES = 2_000;
    /** Prometheus' default {@code evaluation_interval}, for groups without {@code interval}. */
    public static final long DEFAULT_INTERVAL_MILLIS = 60_000;

    private static final Set<String> FILE_FIELDS = Set.of("groups");
    private static final Set<String> GROUP_FIELDS = Set.of("name", "interval", "limit", "rules");
    private static final Set<String> RULE_FIELDS =
            Set.of("record", "alert", "expr", "for", "keep_firing_for", "labels", "annotations");
    private static final ObjectMapper YAML;
    private static final java.util.regex.Pattern LIMIT =
            java.util.regex.Pattern.compile("\\+?([0-9]{1,12})|0x([0-9a-fA-F]{1,12})|0o([0-7]{1,12})");

    static {
        LoaderOptions options = new LoaderOptions();
        // Anchors may not expand a small file into a huge tree ("billion laughs").
        options.setMaxAliasesForCollections(50);
        options.setCodePointLimit(MAX_FILE_BYTES);
        options.setNestingDepthLimit(50);
        YAMLFactory factory = YAMLFactory.builder()
                .loaderOptions(options)
                .streamReadConstraints(
                        StreamReadConstraints.builder().maxNestingDepth(50).build())
                .build();
        factory.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        YAML = new ObjectMapper(factory);
    }

    private RuleFiles() {}

    /** Every {@code *.yml}/{@code *.yaml} directly in {@code dir}, in name order; at most {@link #MAX_RULES} rules in all. */
    public static RuleSet loadDirectory(Path dir) throws RuleFileException, IOException {
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml") && Files.isRegularFile(p))
                    .sorted()
                    .toList();
        }
        Map<String, String> contents = new LinkedHashMap<>();
        for (Path f : files) {
            if (Files.size(f) > MAX_FILE_BYTES) {
                throw new RuleFileException(
                        f.getFileName() + ": " + Files.size(f) + " bytes, at most " + MAX_FILE_BYTES + " allowed");
            }
            contents.put(f.getFileName().toString(), Files.readString(f, StandardCharsets.UTF_8));
        }
        return load(contents);
    }

    /** Files by name (in the map's order). */
    public static RuleSet load(Map<String, String> files) throws RuleFileException {
        List<RuleGroup> groups = new ArrayList<>();
        int rules = 0;
        for (Map.Entry<String, String> f : files.entrySet()) {
            for (RuleGroup g : parse(f.getKey(), f.getValue())) {
                rules += g.rules().size();
                if (rules > MAX_RULES) {
                    throw new RuleFileException(f.getKey() + ": group \"" + g.name() + "\": more than " + MAX_RULES
                            + " rules in all files (the most one evaluator runs each interval)");
                }
                groups.add(g);
            }
        }
        return new RuleSet(List.copyOf(groups));
    }

    /** One file's groups. */
    public static List<RuleGroup> parse(String file, String content) throws RuleFileException {
        if (content.length() > MAX_FILE_BYTES || content.getBytes(StandardCharsets.UTF_8).length > MAX_FILE_BYTES) {
            throw new RuleFileException(file + ": more than " + MAX_FILE_BYTES + " bytes");
        }
        JsonNode root;
        try {
            root = readTree(content);
        } catch (IOException | RuntimeException e) {
            throw new RuleFileException(file + ": not valid YAML: " + firstLine(e.getMessage()));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            return List.of();
        }
        if (!root.isObject()) {
            throw new RuleFileException(file + ": the file must be a mapping with \"groups\"");
        }
        unknownFields(root, FILE_FIELDS, file + ": ", "the file");
        JsonNode groupsNode = root.path("groups");
        if (groupsNode.isMissingNode() || groupsNode.isNull()) {
            return List.of();
        }
        if (!groupsNode.isArray()) {
            throw new RuleFileException(file + ": \"groups\" must be a list");
        }
        List<RuleGroup> groups = new ArrayList<>();
        Set<String> names = new HashSet<>();
        int count = 0;
        for (JsonNode g : groupsNode) {
            String where = file + ": group " + (groups.size() + 1);
            if (!g.isObject()) {
                throw new RuleFileException(where + ": must be a mapping");
            }
            String name = text(g, "name", where);
            if (name == null || name.isEmpty()) {
                throw new RuleFileException(where + ": Groupname must not be empty");
            }
            where = file + ": group \"" + abbreviate(name) + "\"";
            if (!names.add(name)) {
                throw new RuleFileException(
                        where + ": groupname: \"" + abbreviate(name) + "\" is repeated in the same file");
            }
            unknownFields(g, GROUP_FIELDS, where + ": ", "a group");
            long interval = DEFAULT_INTERVAL_MILLIS;
            String intervalText = text(g, "interval", where);
            if (intervalText != null) {
                interval = duration(intervalText, where, "interval");
                if (interval != 0 && (interval % 60_000 != 0)) {
                    throw new RuleFileException(where + ": interval " + intervalText + " is not a whole number of"
                            + " minutes (Pulse stores one summary per minute: a shorter or unaligned interval would"
                            + " evaluate the same minutes again)");
                }
                if (interval == 0) {
                    interval = DEFAULT_INTERVAL_MILLIS;
                }
            }
            int limit = 0;
            if (g.has("limit") && !g.get("limit").isNull()) {
                JsonNode l = g.get("limit");
                limit = limit(l.asText(), where);
            }
            List<Rule> rules = new ArrayList<>();
            JsonNode rulesNode = g.path("rules");
            if (!rulesNode.isMissingNode() && !rulesNode.isNull()) {
                if (!rulesNode.isArray()) {
                    throw new RuleFileException(where + ": \"rules\" must be a list");
                }
                for (JsonNode r : rulesNode) {
                    if (++count > MAX_RULES) {
                        throw new RuleFileException(file + ": more than " + MAX_RULES + " rules");
                    }
                    rules.add(rule(r, where + ", rule " + (rules.size() + 1)));
                }
            }
            groups.add(new RuleGroup(file, name, interval, limit, List.copyOf(rules)));
        }
        return List.copyOf(groups);
    }

    /** A group's limit as YAML writes an integer ({@code 10}, {@code +10}, {@code 0x0a}, {@code 0o12}). */
    private static int limit(String text, String where) throws RuleFileException {
        java.util.regex.Matcher m = LIMIT.matcher(text);
        if (!m.matches()) {
            throw new RuleFileException(where + ": limit must be a non-negative integer");
        }
        try {
            return m.group(1) != null
                    ? Integer.parseInt(m.group(1))
                    : m.group(2) != null ? Integer.parseInt(m.group(2), 16) : Integer.parseInt(m.group(3), 8);
        } catch (NumberFormatException e) {
            throw new RuleFileException(where + ": limit " + abbreviate(text) + " is out of range");
        }
    }

    /**
     * The YAML as a tree whose scalars are the text as written: promtool reads labels, annotations and names into Go
     * strings, so {@code version: 1.10} is "1.10" and {@code paged: yes} is "yes", where a typed tree would give
     * "1.1" and "true". Null stays null. Duplicate keys, nesting and aliases are bounded by the parser.
     */
    private static JsonNode readTree(String content) throws IOException {
        try (JsonParser p = YAML.getFactory().createParser(content)) {
            JsonToken t = p.nextToken();
            return t == null ? null : node(p, t);
        }
    }

    private static JsonNode node(JsonParser p, JsonToken t) throws IOException {
        switch (t) {
            case START_OBJECT -> {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                for (JsonToken f = p.nextToken(); f == JsonToken.FIELD_NAME; f = p.nextToken()) {
                    String name = p.currentName();
                    o.set(name, node(p, p.nextToken()));
                }
                return o;
            }
            case START_ARRAY -> {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
                    a.add(node(p, e));
                }
                return a;
            }
            case VALUE_NULL -> {
                return NullNode.getInstance();
            }
            default -> {
                if (!t.isScalarValue()) {
                    throw new IOException("unexpected " + t);
                }
                if (p instanceof YAMLParser y && y.isCurrentAlias()) {
                    // The parser gives an alias as its anchor's name: promtool reads "expr: *e" as the expression
                    // "e" and an aliased mapping as a mapping, either way not what the file shows here.
                    throw new IOException("line " + p.currentLocation().getLineNr() + ": the alias *"
                            + abbreviate(p.getText()) + ": YAML aliases are not supported, write the value out");
                }
                return TextNode.valueOf(p.getText());
            }
        }
    }

    private static Rule rule(JsonNode r, String where) throws RuleFileException {
        if (!r.isObject()) {
            throw new RuleFileException(where + ": must be a mapping");
        }
        String record = text(r, "record", where);
        String alert = text(r, "alert", where);
        if (record != null && !record.isEmpty() && alert != null && !alert.isEmpty()) {
            throw new RuleFileException(where + ": only one of 'record' and 'alert' must be set");
        }
        if ((record == null || record.isEmpty()) && (alert == null || alert.isEmpty())) {
            throw new RuleFileException(where + ": one of 'record' or 'alert' must be set");
        }
        String name = record != null && !record.isEmpty() ? record : alert;
        where = where + " (\"" + abbreviate(name) + "\")";
        unknownFields(r, RULE_FIELDS, where + ": ", "a rule");
        String expr = text(r, "expr", where);
        if (expr == null || expr.isEmpty()) {
            throw new RuleFileException(where + ": field 'expr' must be set in rule");
        }
        try {
            RuleEvaluation.check(expr);
        } catch (PromQlException e) {
            throw new RuleFileException(where + ": could not parse expression: " + e.getMessage());
        }
        SortedMap<String, String> labels = map(r, "labels", where);
        for (String l : labels.keySet()) {
            if (!Names.validLabelName(l) || l.equals("__name__")) {
                throw new RuleFileException(where + ": invalid label name: " + abbreviate(l));
            }
        }
        if (record != null && !record.isEmpty()) {
            if (r.has("annotations") && !r.get("annotations").isNull()) {
                throw new RuleFileException(where + ": invalid field 'annotations' in recording rule");
            }
            if (r.has("for") && !r.get("for").isNull()) {
                throw new RuleFileException(where + ": invalid field 'for' in recording rule");
            }
            if (r.has("keep_firing_for") && !r.get("keep_firing_for").isNull()) {
                throw new RuleFileException(where + ": invalid field 'keep_firing_for' in recording rule");
            }
            if (!Names.validMetricName(record)) {
                throw new RuleFileException(where + ": invalid recording rule name: " + abbreviate(record));
            }
            return new RecordingRule(record, expr, Collections.unmodifiableSortedMap(labels));
        }
        long forMillis = r.has("for") && !r.get("for").isNull() ? duration(text(r, "for", where), where, "for") : 0;
        long keepFiring = r.has("keep_firing_for") && !r.get("keep_firing_for").isNull()
                ? duration(text(r, "keep_firing_for", where), where, "keep_firing_for")
                : 0;
        SortedMap<String, String> annotations = map(r, "annotations", where);
        for (String a : annotations.keySet()) {
            if (!Names.validLabelName(a)) {
                throw new RuleFileException(where + ": invalid annotation name: " + abbreviate(a));
            }
        }
        Map<String, GoTemplate> labelTemplates = templates(labels, alert, where, "label");
        Map<String, GoTemplate> annotationTemplates = templates(annotations, alert, where, "annotation");
        return new AlertingRule(
                alert,
                expr,
                forMillis,
                keepFiring,
                Collections.unmodifiableSortedMap(labels),
                Collections.unmodifiableSortedMap(annotations),
                labelTemplates,
                annotationTemplates);
    }

    private static Map<String, GoTemplate> templates(
            SortedMap<String, String> values, String alert, String where, String kind) throws RuleFileException {
        Map<String, GoTemplate> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : values.entrySet()) {
            try {
                out.put(e.getKey(), GoTemplate.parse("__alert_" + alert, e.getValue()));
            } catch (TemplateException ex) {
                throw new RuleFileException(where + ": " + kind + " " + e.getKey() + ": " + ex.getMessage());
            }
        }
        return Collections.unmodifiableMap(out);
    }

    private static long duration(String s, String where, String field) throws RuleFileException {
        if (s == null) {
            throw new RuleFileException(where + ": " + field + " must be a duration");
        }
        try {
            return Durations.parse(s);
        } catch (IllegalArgumentException e) {
            throw new RuleFileException(where + ": " + field + ": " + e.getMessage());
        }
    }

    /** A scalar field as text (YAML numbers and booleans as written), null when absent. */
    private static String text(JsonNode n, String field, String where) throws RuleFileException {
        JsonNode v = n.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isValueNode()) {
            throw new RuleFileException(where + ": " + field + " must be a string");
        }
        return v.asText();
    }

    private static SortedMap<String, String> map(JsonNode n, String field, String where) throws RuleFileException {
        JsonNode v = n.get(field);
        SortedMap<String, String> out = new TreeMap<>();
        if (v == null || v.isNull()) {
            return out;
        }
        if (!v.isObject()) {
            throw new RuleFileException(where + ": " + field + " must be a mapping of names to strings");
        }
        Iterator<Map.Entry<String, JsonNode>> it = v.fields();
        while (it.hasNext()) {
            Map.Entry<String, JsonNode> e = it.next();
            if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                throw new RuleFileException(where + ": " + field + " " + abbreviate(e.getKey()) + " must be a string");
            }
            out.put(e.getKey(), e.getValue().asText());
        }
        return out;
    }

    private static void unknownFields(JsonNode n, Set<String> known, String where, String what)
            throws RuleFileException {
        Iterator<String> names = n.fieldNames();
        while (names.hasNext()) {
            String f = names.next();
            if (!known.contains(f)) {
                throw new RuleFileException(where + "field " + abbreviate(f) + " not found in " + what + " (known: "
                        + new java.util.TreeSet<>(known) + ")");
            }
        }
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "";
        }
        int nl = s.indexOf('\n');
        return abbreviate(nl < 0 ? s : s.substring(0, nl));
    }

    static String abbreviate(String s) {
        String one = s.replace("\n", "\\n");
        return one.length() <= 80 ? one : one.substring(0, 80) + "...";
    }
}
