package dev.pulse.loadgen;

/**
 * One recorded Kinesis record to replay.
 *
 * @param data           the record's data, as recorded
 * @param partitionKey   the recorded partition key (kept, so shard placement and ordering match production)
 * @param recordedMillis when it arrived in the recording (epoch ms), for {@code recorded} mode
 */
public record ReplayRecord(byte[] data, String partitionKey, long recordedMillis) {
}
