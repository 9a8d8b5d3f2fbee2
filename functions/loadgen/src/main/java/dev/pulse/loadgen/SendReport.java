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
package dev.pulse.loadgen;

import java.util.List;

/**
 * What one worker (or, merged, the whole run) did.
 *
 * @param sent          records handed to PutRecords for the first time (canaries excluded)
 * @param acked         records Kinesis accepted, after retries
 * @param failed        records given up after the last retry
 * @param throttled     per-record ProvisionedThroughputExceeded answers (each retried)
 * @param retried       record retries of any cause
 * @param targetRate    records/s asked for (after ramp-up)
 * @param achievedRate  records/s sent after ramp-up
 * @param sentPerSecond records sent in each second of the run, by actual send time
 * @param scheduledPerSecond records the schedule asked for in each second (the target, ramp included)
 * @param latencyPerSecond   put latency of the records intended for each second (index = second)
 * @param canaries      canary records sent, with their send times (epoch ms)
 * @param latency       put latency from each record's intended send time to its acknowledgement
 * @param units         what Kinesis billed for the acknowledged records, aggregated or not
 * @param canaryUnconfirmedPuts per canary (as {@code canaries}), the PutRecords calls that failed without saying
 *                      whether it was stored: each may have stored it once more (Kinesis has no idempotent put)
 */
public record SendReport(
        long sent,
        long acked,
        long failed,
        long throttled,
        long retried,
        double targetRate,
        double achievedRate,
        long[] sentPerSecond,
        long[] scheduledPerSecond,
        List<Second> latencyPerSecond,
        List<Long> canaries,
        LatencyHistogram latency,
        Units units,
        List<Integer> canaryUnconfirmedPuts) {

    /** A report whose canaries were each acknowledged by the only call that carried them. */
    public SendReport(
            long sent,
            long acked,
            long failed,
            long throttled,
            long retried,
            double targetRate,
            double achievedRate,
            long[] sentPerSecond,
            long[] scheduledPerSecond,
            List<Second> latencyPerSecond,
            List<Long> canaries,
            LatencyHistogram latency,
            Units units) {
        this(
                sent,
                acked,
                failed,
                throttled,
                retried,
                targetRate,
                achievedRate,
                sentPerSecond,
                scheduledPerSecond,
                latencyPerSecond,
                canaries,
                latency,
                units,
                java.util.Collections.nCopies(canaries.size(), 0));
    }

    /** Put latency percentiles of the records intended for one second, in milliseconds (0 when none). */
    public record Second(long count, double p50, double p90, double p99, double max) {

        static Second of(LatencyHistogram h) {
            return h == null
                    ? new Second(0, 0, 0, 0, 0)
                    : new Second(
                            h.count(),
                            h.percentileMillis(50),
                            h.percentileMillis(90),
                            h.percentileMillis(99),
                            h.maxMillis());
        }
    }

    /** A 25 KB PUT payload unit: Kinesis bills each record by the started 25 KB of its payload. */
    public static final int PUT_PAYLOAD_UNIT_BYTES = 25 * 1024;

    /**
     * Kinesis-side cost of the acknowledged records (canaries excluded). Counts, sent, acked and latency above are
     * per replayed (user) record whether aggregated or not; throttled and retried are per Kinesis record.
     *
     * @param kinesisRecords             Kinesis records acknowledged (aggregates when aggregating)
     * @param payloadBytes               their data and partition keys
     * @param putPayloadUnits            their PUT payload units
     * @param putPayloadUnitsUnaggregated what the same user records would have cost as one Kinesis record each
     */
    public record Units(
            long kinesisRecords, long payloadBytes, long putPayloadUnits, long putPayloadUnitsUnaggregated) {

        public static final Units NONE = new Units(0, 0, 0, 0);

        /** PUT payload units of one record of {@code bytes} (data and partition key). */
        public static long of(long bytes) {
            return Math.max(1, (bytes + PUT_PAYLOAD_UNIT_BYTES - 1) / PUT_PAYLOAD_UNIT_BYTES);
        }
    }
}
