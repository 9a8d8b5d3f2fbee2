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
package dev.pulse.codec;

import dev.pulse.model.Datapoint;
import java.util.ArrayList;

/**
 * What a Kinesis record may still cost while it is decoded: datapoints, histogram points and inflated bytes, per
 * unit and, for a KPL aggregate, for its user records together. Counted as the decoders read, so a limit stops the
 * work when it is passed, not after. One budget per Kinesis record: its use depends only on that record's bytes.
 */
final class DecodeBudget {

    private final boolean aggregate;
    private int datapoints;
    private int histograms;
    private int emptyMetrics;
    private long inflated;

    private DecodeBudget(boolean aggregate) {
        this.aggregate = aggregate;
    }

    /** The budget of a plain record: its one unit has the per-record limits. */
    static DecodeBudget forRecord() {
        return new DecodeBudget(false);
    }

    /** The budget of a KPL aggregate: each user record has the per-record limits, all of them the per-aggregate ones. */
    static DecodeBudget forAggregate() {
        return new DecodeBudget(true);
    }

    /** A new unit's datapoint list, which refuses to grow past the unit's or the aggregate's limit. */
    Datapoints unit() {
        return new Datapoints(this);
    }

    /**
     * At most how many bytes the next inflation may produce: {@code formatLimit}, or less when the aggregate's
     * budget has less left.
     */
    int inflateLimit(int formatLimit) {
        if (!aggregate) {
            return formatLimit;
        }
        return (int) Math.max(0, Math.min(formatLimit, DecodeLimits.MAX_DECOMPRESSED_BYTES_PER_AGGREGATE - inflated));
    }

    /** Whether {@link #inflateLimit} of {@code formatLimit} is set by the aggregate's budget rather than the format's. */
    boolean aggregateBound(int formatLimit) {
        return inflateLimit(formatLimit) < formatLimit;
    }

    /** Counts {@code n} inflated bytes against the aggregate. */
    void inflated(int n) {
        inflated += n;
    }

    /** The reason an inflation that passed {@code limit} is poison. */
    LimitExceeded inflatedTooMuch(String what, int formatLimit, String limitName) {
        if (aggregateBound(formatLimit)) {
            return new LimitExceeded(
                    "KPL aggregate: its user records decompress to more than "
                            + DecodeLimits.MAX_DECOMPRESSED_BYTES_PER_AGGREGATE
                            + " bytes together (MAX_DECOMPRESSED_BYTES_PER_AGGREGATE)",
                    true);
        }
        return new LimitExceeded(
                what + " decompresses to more than " + formatLimit + " bytes (" + limitName + ")", false);
    }

    /** Counts one histogram data point, refusing the one past the limit. */
    void histogram(String at) {
        if (++histograms > DecodeLimits.MAX_HISTOGRAM_POINTS_PER_RECORD) {
            throw new LimitExceeded(
                    (aggregate ? "KPL aggregate: its user records have" : at + ": the record has")
                            + " more than " + DecodeLimits.MAX_HISTOGRAM_POINTS_PER_RECORD
                            + " histogram data points (MAX_HISTOGRAM_POINTS_PER_RECORD)",
                    aggregate);
        }
    }

    /** A unit's datapoints: an ArrayList whose {@code add} counts against the limits before it stores. */
    static final class Datapoints extends ArrayList<Datapoint> {

        private final transient DecodeBudget budget;
        private int emptyMetrics;

        Datapoints(DecodeBudget budget) {
            this.budget = budget;
        }

        /**
         * Counts one pass over an EMF metric (of one dimension set) whose value array is empty: work that makes no
         * datapoint, refused past {@link DecodeLimits#MAX_EMF_EMPTY_METRICS_PER_RECORD} (and, in a KPL aggregate,
         * {@link DecodeLimits#MAX_EMF_EMPTY_METRICS_PER_AGGREGATE}).
         */
        void emptyMetric(String at) {
            if (++emptyMetrics > DecodeLimits.MAX_EMF_EMPTY_METRICS_PER_RECORD) {
                throw new LimitExceeded(
                        at + ": more than " + DecodeLimits.MAX_EMF_EMPTY_METRICS_PER_RECORD
                                + " EMF metrics with an empty value array (per dimension set) in one record"
                                + " (MAX_EMF_EMPTY_METRICS_PER_RECORD)",
                        false);
            }
            if (budget.aggregate && ++budget.emptyMetrics > DecodeLimits.MAX_EMF_EMPTY_METRICS_PER_AGGREGATE) {
                throw new LimitExceeded(
                        "KPL aggregate: its user records hold more than "
                                + DecodeLimits.MAX_EMF_EMPTY_METRICS_PER_AGGREGATE
                                + " EMF metrics with an empty value array (per dimension set) together"
                                + " (MAX_EMF_EMPTY_METRICS_PER_AGGREGATE)",
                        true);
            }
        }

        @Override
        public boolean add(Datapoint dp) {
            if (size() >= DecodeLimits.MAX_DATAPOINTS_PER_RECORD) {
                throw new LimitExceeded(
                        "more than " + DecodeLimits.MAX_DATAPOINTS_PER_RECORD
                                + " datapoints in one record (MAX_DATAPOINTS_PER_RECORD)",
                        false);
            }
            if (budget.aggregate && budget.datapoints >= DecodeLimits.MAX_DATAPOINTS_PER_AGGREGATE) {
                throw new LimitExceeded(
                        "KPL aggregate: its user records hold more than " + DecodeLimits.MAX_DATAPOINTS_PER_AGGREGATE
                                + " datapoints together (MAX_DATAPOINTS_PER_AGGREGATE)",
                        true);
            }
            budget.datapoints++;
            return super.add(dp);
        }
    }
}
