package dev.pulse.dlq;

/**
 * A record that can never be ingested as it is, with what an operator needs to find, fix and put it back.
 *
 * @param source         the function that rejected it
 * @param shardId        Kinesis shard (or the event source ARN's stream for other sources)
 * @param sequenceNumber the record's sequence number
 * @param partitionKey   the record's partition key
 * @param arrivalMillis  the record's approximate arrival time, epoch milliseconds
 * @param reason         why it was rejected
 * @param payload        the record's data (only the first {@link DeadLetterQueue#PAYLOAD_HEAD_BYTES} are sent)
 */
public record PoisonRecord(String source, String shardId, String sequenceNumber, String partitionKey,
        long arrivalMillis, String reason, byte[] payload) {
}
