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
package dev.pulse.aggregate;

import com.datadoghq.sketch.ddsketch.DDSketch;
import java.util.Map;

/**
 * Summary of one series over one minute as seen in one batch: count, sum, min, max and a DDSketch, plus the
 * sequence numbers of the first and last contributing records. The first sequence number is part of the
 * stored item's key, which is what makes a retried batch overwrite its own items.
 */
public final class Partial {

    private final String seriesKey;
    private final String name;
    private final Map<String, String> dims;
    private final long minuteStart;
    private final String shardId;
    private final String firstSequence;
    private String lastSequence;
    private String unit;
    private dev.pulse.model.MetricKind kind;
    private final Summary summary = new Summary();

    Partial(
            String seriesKey,
            String name,
            Map<String, String> dims,
            long minuteStart,
            String shardId,
            String firstSequence) {
        this.seriesKey = seriesKey;
        this.name = name;
        this.dims = dims;
        this.minuteStart = minuteStart;
        this.shardId = shardId;
        this.firstSequence = firstSequence;
        this.lastSequence = firstSequence;
    }

    void add(double value, String unit, String sequence) {
        summary.add(value);
        lastSequence = sequence;
        if (unit != null) {
            this.unit = unit;
        }
    }

    /**
     * One sample of a cumulative counter: its value goes into the summary as any value does, and the sample into the
     * summary's {@link Counter}, from which the query answers the reset-corrected increase.
     */
    void addCounterSample(double value, long time, long startNanos, String unit, String sequence) {
        add(value, unit, sequence);
        summary.addCounterSample(time, startNanos, value);
    }

    /** A producer's pre-aggregated values (an OTLP histogram point), merged whole so count and sum stay exact. */
    void add(Summary values, String unit, String sequence) {
        summary.merge(values);
        lastSequence = sequence;
        if (unit != null) {
            this.unit = unit;
        }
    }

    public String seriesKey() {
        return seriesKey;
    }

    public String name() {
        return name;
    }

    public Map<String, String> dims() {
        return dims;
    }

    /** Epoch milliseconds of the minute's start (UTC). */
    public long minuteStart() {
        return minuteStart;
    }

    public String shardId() {
        return shardId;
    }

    public String firstSequence() {
        return firstSequence;
    }

    public String lastSequence() {
        return lastSequence;
    }

    /** The producer's metric type (the last one sent in the minute), or null; the catalog keeps it. */
    public dev.pulse.model.MetricKind kind() {
        return kind;
    }

    void kind(dev.pulse.model.MetricKind k) {
        if (k != null) {
            this.kind = k;
        }
    }

    public String unit() {
        return unit;
    }

    /** Count, exact sum, min, max and sketch of the values. */
    public Summary summary() {
        return summary;
    }

    public long count() {
        return summary.count();
    }

    /** The exact sum, rounded once to a double. */
    public double sum() {
        return summary.sum();
    }

    public double min() {
        return summary.min();
    }

    public double max() {
        return summary.max();
    }

    public DDSketch sketch() {
        return summary.sketch();
    }
}
