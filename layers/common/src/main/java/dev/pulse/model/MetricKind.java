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
package dev.pulse.model;

import java.util.Objects;

/**
 * What an OTLP producer said about a metric beyond its values: its type, its temporality, its unit as sent (UCUM, before
 * the CloudWatch name the partial keeps) and, for a histogram, its explicit bucket bounds. Kept once per series in the
 * catalog ({@link #encode()}), so the Prometheus API can answer under the names OpenTelemetry's Prometheus
 * compatibility rules give the metric and serve its type in {@code /api/v1/metadata}.
 *
 * @param type        the OTLP data type, monotonic sums told apart from the others
 * @param temporality {@code delta}, {@code cumulative}, or {@code none} (gauges, summaries)
 * @param unit        the OTLP unit as sent, possibly empty
 * @param bounds      a histogram's explicit bounds, comma-separated in increasing order ({@code ""} for none, or when
 *                    more than {@link #MAX_BOUNDS_CHARS} characters: the catalog entry stays one write unit)
 */
public record MetricKind(Type type, Temporality temporality, String unit, String bounds) {

    /** Bounds longer than this are not kept: a histogram then answers only {@code le="+Inf"}. */
    public static final int MAX_BOUNDS_CHARS = 400;

    /** The OTLP data type. */
    public enum Type {
        GAUGE("gauge"),
        COUNTER("counter"),
        UPDOWN("updowncounter"),
        HISTOGRAM("histogram"),
        EXPONENTIAL("exphistogram"),
        SUMMARY_COUNT("summary_count"),
        SUMMARY_SUM("summary_sum");

        private final String code;

        Type(String code) {
            this.code = code;
        }

        public String code() {
            return code;
        }

        static Type of(String code) {
            for (Type t : values()) {
                if (t.code.equals(code)) {
                    return t;
                }
            }
            return null;
        }
    }

    /** How the values accumulate. */
    public enum Temporality {
        DELTA,
        CUMULATIVE,
        NONE
    }

    public MetricKind {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(temporality, "temporality");
        unit = unit == null ? "" : unit;
        bounds = bounds == null || bounds.length() > MAX_BOUNDS_CHARS ? "" : bounds;
    }

    /**
     * Whether the values are a cumulative counter's running total from one writer (an OTLP cumulative monotonic sum, a
     * Prometheus counter), whose partials keep what the reset-corrected increase needs ({@code dev.pulse.aggregate.Counter}).
     * Non-monotonic cumulative sums are not: a lower value is a real decrease there, not a reset.
     */
    public boolean isCumulativeCounter() {
        return type == Type.COUNTER && temporality == Temporality.CUMULATIVE;
    }

    /** A kind without bounds. */
    public static MetricKind of(Type type, Temporality temporality, String unit) {
        return new MetricKind(type, temporality, unit, "");
    }

    /** A histogram's kind with its explicit bounds (finite, increasing: the decoder checked them). */
    public static MetricKind histogram(Temporality temporality, String unit, java.util.List<Double> bounds) {
        StringBuilder sb = new StringBuilder();
        for (double b : bounds) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            // Whole numbers without Java's ".0": the SDKs' default bounds are, and the entry stays short.
            sb.append(b == Math.rint(b) && Math.abs(b) < 1e15 ? Long.toString((long) b) : Double.toString(b));
            if (sb.length() > MAX_BOUNDS_CHARS) {
                return new MetricKind(Type.HISTOGRAM, temporality, unit, "");
            }
        }
        return new MetricKind(Type.HISTOGRAM, temporality, unit, sb.toString());
    }

    /** {@code type|temporality|bounds|unit}: the unit last, since it may hold any character. */
    public String encode() {
        return type.code + "|" + temporality.name().toLowerCase(java.util.Locale.ROOT) + "|" + bounds + "|" + unit;
    }

    /** The kind {@link #encode()} wrote, or null for a value this version cannot read (an unknown type). */
    public static MetricKind decode(String s) {
        if (s == null) {
            return null;
        }
        String[] parts = s.split("\\|", 4);
        if (parts.length != 4) {
            return null;
        }
        Type t = Type.of(parts[0]);
        Temporality tm;
        try {
            tm = Temporality.valueOf(parts[1].toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            return null;
        }
        return t == null ? null : new MetricKind(t, tm, parts[3], parts[2]);
    }

    /** The explicit bounds, in increasing order; unreadable entries are skipped. */
    public double[] boundValues() {
        if (bounds.isEmpty()) {
            return new double[0];
        }
        String[] parts = bounds.split(",", -1); // an empty entry is unreadable and skipped like any other
        double[] out = new double[parts.length];
        int n = 0;
        for (String p : parts) {
            try {
                double v = Double.parseDouble(p);
                if (Double.isFinite(v) && (n == 0 || v > out[n - 1])) {
                    out[n++] = v;
                }
            } catch (NumberFormatException e) {
                // skipped: an entry written by a later version
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }
}
