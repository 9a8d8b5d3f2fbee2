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
package dev.pulse.query.promql.internal;

import dev.pulse.model.MetricKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The names and labels OpenTelemetry's Prometheus compatibility rules give an OTLP metric (the specification's
 * "Prometheus and OpenMetrics Compatibility", as the Collector's Prometheus exporters apply it in
 * {@code normalize_name.go} and {@code normalize_label.go}):
 * <ul>
 *   <li>name: split into the runs of ASCII letters and digits; the unit's Prometheus word appended unless already one
 *       of them ({@code s} to {@code seconds}, {@code By} to {@code bytes}, ...; {@code {annotations}} dropped), a
 *       per-unit as {@code per_<word>}; {@code total} moved to the end of a monotonic sum, {@code ratio} appended to a
 *       gauge of unit {@code 1}; joined with {@code _}; {@code _} put before a leading digit;</li>
 *   <li>histograms answer as {@code <name>_bucket} (with {@code le}), {@code <name>_count} and {@code <name>_sum}; a
 *       summary's {@code .count} and {@code .sum} datapoints as {@code <name>_count} and {@code <name>_sum};</li>
 *   <li>labels: every character but ASCII letters, digits and {@code _} becomes {@code _}; {@code key_} before a
 *       leading digit, {@code key} before a single leading {@code _}; attributes that become the same label name keep
 *       all their values, joined with {@code ;} in the order of the original keys (the specification's rule, so two
 *       attributes never overwrite each other); {@code service.namespace}/{@code service.name} also as {@code job}.</li>
 * </ul>
 * These are aliases computed at query time from the stored name, dimensions and the catalog's {@link MetricKind}: what
 * ingest stores is unchanged.
 */
public final class OtelNames {

    /** Which of the stored series' numbers an alias answers. */
    public enum View {
        /** The stored values as they are (gauges, sums, a summary's count or sum). */
        RAW,
        /** The number of values a histogram recorded ({@code _count}). */
        COUNT,
        /** Their sum ({@code _sum}). */
        SUM,
        /** How many were at most {@code le} ({@code _bucket}), from the stored sketch. */
        BUCKET
    }

    /** One name a stored metric also answers under. */
    public record Alias(String name, View view) {}

    private static final Map<String, String> UNITS = Map.ofEntries(
            Map.entry("d", "days"),
            Map.entry("h", "hours"),
            Map.entry("min", "minutes"),
            Map.entry("s", "seconds"),
            Map.entry("ms", "milliseconds"),
            Map.entry("us", "microseconds"),
            Map.entry("ns", "nanoseconds"),
            Map.entry("By", "bytes"),
            Map.entry("KiBy", "kibibytes"),
            Map.entry("MiBy", "mebibytes"),
            Map.entry("GiBy", "gibibytes"),
            Map.entry("TiBy", "tibibytes"),
            Map.entry("KBy", "kilobytes"),
            Map.entry("MBy", "megabytes"),
            Map.entry("GBy", "gigabytes"),
            Map.entry("TBy", "terabytes"),
            Map.entry("m", "meters"),
            Map.entry("V", "volts"),
            Map.entry("A", "amperes"),
            Map.entry("J", "joules"),
            Map.entry("W", "watts"),
            Map.entry("g", "grams"),
            Map.entry("Cel", "celsius"),
            Map.entry("Hz", "hertz"),
            Map.entry("1", ""),
            Map.entry("%", "percent"),
            Map.entry("$", "dollars"));
    private static final Map<String, String> PER_UNITS =
            Map.of("s", "second", "m", "minute", "h", "hour", "d", "day", "w", "week", "mo", "month", "y", "year");

    private OtelNames() {}

    /** The names {@code stored} (of type {@code kind}) answers under besides its own; none without a kind. */
    public static List<Alias> aliases(String stored, MetricKind kind) {
        if (kind == null) {
            return List.of();
        }
        List<Alias> out = new ArrayList<>(3);
        switch (kind.type()) {
            case HISTOGRAM, EXPONENTIAL -> {
                String base = metricName(stored, kind);
                if (!base.isEmpty()) {
                    out.add(new Alias(base + "_bucket", View.BUCKET));
                    out.add(new Alias(base + "_count", View.COUNT));
                    out.add(new Alias(base + "_sum", View.SUM));
                }
            }
            case SUMMARY_COUNT, SUMMARY_SUM -> {
                String suffix = kind.type() == MetricKind.Type.SUMMARY_COUNT ? ".count" : ".sum";
                if (stored.endsWith(suffix)) {
                    String base = metricName(stored.substring(0, stored.length() - suffix.length()), kind);
                    if (!base.isEmpty()) {
                        out.add(new Alias(base + "_" + suffix.substring(1), View.RAW));
                    }
                }
            }
            default -> {
                String name = metricName(stored, kind);
                if (!name.isEmpty()) {
                    out.add(new Alias(name, View.RAW));
                }
            }
        }
        out.removeIf(a -> a.name().equals(stored)); // already answered under its own name
        return out;
    }

    /** The Prometheus metric name of an OTLP metric (without a histogram's suffixes); empty when nothing is left. */
    public static String metricName(String name, MetricKind kind) {
        List<String> tokens = tokens(name);
        String[] unit = kind.unit().split("/", 2);
        String main = unit[0].trim();
        if (!main.isEmpty() && main.indexOf('{') < 0 && main.indexOf('}') < 0) {
            String word = String.join("_", tokens(UNITS.getOrDefault(main, main)));
            if (!word.isEmpty() && !tokens.contains(word)) {
                tokens.add(word);
            }
        }
        if (unit.length > 1) {
            String per = unit[1].trim();
            if (!per.isEmpty() && per.indexOf('{') < 0 && per.indexOf('}') < 0) {
                String word = String.join("_", tokens(PER_UNITS.getOrDefault(per, per)));
                if (!word.isEmpty() && !tokens.contains(word)) {
                    tokens.add("per");
                    tokens.add(word);
                }
            }
        }
        if (kind.type() == MetricKind.Type.COUNTER) {
            tokens.removeIf("total"::equals);
            tokens.add("total");
        }
        if (kind.type() == MetricKind.Type.GAUGE && kind.unit().equals("1")) {
            tokens.removeIf("ratio"::equals);
            tokens.add("ratio");
        }
        String out = String.join("_", tokens);
        return !out.isEmpty() && Character.isDigit(out.charAt(0)) ? "_" + out : out;
    }

    /** The runs of ASCII letters and digits in {@code s}. */
    private static List<String> tokens(String s) {
        List<String> out = new ArrayList<>();
        int start = -1;
        for (int i = 0; i <= s.length(); i++) {
            boolean word = i < s.length() && isAsciiAlnum(s.charAt(i));
            if (word && start < 0) {
                start = i;
            } else if (!word && start >= 0) {
                out.add(s.substring(start, i));
                start = -1;
            }
        }
        return out;
    }

    private static boolean isAsciiAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    }

    /** A Prometheus label name for attribute key {@code key}. */
    public static String labelName(String key) {
        if (key.isEmpty()) {
            return key;
        }
        StringBuilder sb = new StringBuilder(key.length() + 4);
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            sb.append(isAsciiAlnum(c) || c == '_' ? c : '_');
        }
        if (Character.isDigit(sb.charAt(0))) {
            sb.insert(0, "key_");
        } else if (sb.charAt(0) == '_' && (sb.length() == 1 || sb.charAt(1) != '_')) {
            sb.insert(0, "key");
        }
        return sb.toString();
    }

    /**
     * The labels of an OTLP series' dimensions under the compatibility rules: keys made label names, colliding keys'
     * values joined with {@code ;} in the order of the original keys, and {@code job} from {@code service.name} (with
     * {@code service.namespace} before a {@code /}) unless an attribute already gives {@code job}.
     */
    public static SortedMap<String, String> labels(Map<String, String> dims) {
        SortedMap<String, String> out = new TreeMap<>();
        for (Map.Entry<String, String> d : new TreeMap<>(dims).entrySet()) {
            String name = labelName(d.getKey());
            if (name.isEmpty()) {
                continue;
            }
            out.merge(name, d.getValue(), (a, b) -> a + ";" + b);
        }
        String service = dims.get("service.name");
        if (service != null && !out.containsKey("job")) {
            String ns = dims.get("service.namespace");
            out.put("job", ns == null || ns.isEmpty() ? service : ns + "/" + service);
        }
        return out;
    }
}
