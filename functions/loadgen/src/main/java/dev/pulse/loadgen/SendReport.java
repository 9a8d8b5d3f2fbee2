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
 * @param canaries      canary records sent, with their send times (epoch ms)
 * @param latency       put latency from each record's intended send time to its acknowledgement
 */
public record SendReport(long sent, long acked, long failed, long throttled, long retried, double targetRate,
        double achievedRate, long[] sentPerSecond, List<Long> canaries, LatencyHistogram latency) {
}
