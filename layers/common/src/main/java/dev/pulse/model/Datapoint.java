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

import dev.pulse.aggregate.Summary;
import java.util.Map;
import java.util.Objects;

/**
 * One measurement of one series at one instant, or (from OTLP histograms) a producer's own summary of many.
 *
 * @param name      metric name, 1-255 characters
 * @param dims      dimensions (may be empty, never null); order does not matter for identity
 * @param timestamp epoch milliseconds
 * @param value     the measured value; for a pre-aggregated datapoint the sum of its values
 * @param unit      CloudWatch unit name, or {@code null} when the producer gave none
 * @param summary   null for a single value; otherwise the count, sum, min, max and sketch of the values the
 *                  producer already aggregated, merged as a whole into the minute (so its count and sum stay exact)
 * @param kind      the producer's metric type where it sends one (OTLP: {@link MetricKind}), else {@code null}; kept in
 *                  the series catalog so the query API can answer under the Prometheus names of OTel metrics
 * @param startNanos a cumulative sum's OTLP start time ({@code start_time_unix_nano}: when its running total started),
 *                  epoch nanoseconds, 0 when not sent or not a cumulative counter; a newer one marks a reset
 */
public record Datapoint(
        String name,
        Map<String, String> dims,
        long timestamp,
        double value,
        String unit,
        Summary summary,
        MetricKind kind,
        long startNanos) {

    public Datapoint {
        Objects.requireNonNull(name, "name");
        dims = dims == null ? Map.of() : dims;
    }

    public Datapoint(
            String name,
            Map<String, String> dims,
            long timestamp,
            double value,
            String unit,
            Summary summary,
            MetricKind kind) {
        this(name, dims, timestamp, value, unit, summary, kind, 0L);
    }

    public Datapoint(
            String name, Map<String, String> dims, long timestamp, double value, String unit, Summary summary) {
        this(name, dims, timestamp, value, unit, summary, null);
    }

    /** A single measured value. */
    public Datapoint(String name, Map<String, String> dims, long timestamp, double value, String unit) {
        this(name, dims, timestamp, value, unit, null);
    }

    /** A producer's summary of many values; {@link #value()} is their sum. */
    public static Datapoint preAggregated(
            String name, Map<String, String> dims, long timestamp, String unit, Summary summary) {
        return new Datapoint(name, dims, timestamp, summary.sum(), unit, Objects.requireNonNull(summary, "summary"));
    }

    /** This datapoint with the producer's metric type. */
    public Datapoint withKind(MetricKind k) {
        return new Datapoint(name, dims, timestamp, value, unit, summary, k, startNanos);
    }

    /** This datapoint with a cumulative sum's OTLP start time (epoch ns, 0 for none). */
    public Datapoint withStartNanos(long start) {
        return new Datapoint(name, dims, timestamp, value, unit, summary, kind, start);
    }

    /** The canonical series key of this datapoint (see {@link SeriesKey}). */
    public String seriesKey() {
        return SeriesKey.of(name, dims);
    }
}
