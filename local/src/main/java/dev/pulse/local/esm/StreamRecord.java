package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One record read from a shard, already in the shape Lambda puts in the event's {@code Records} array.
 *
 * @param sequenceNumber the record's sequence number ({@code kinesis.sequenceNumber}); numeric strings, comparable as
 *                       big integers
 * @param partitionKey   the record's partition key
 * @param arrival        approximate arrival
 * @param sizeBytes      payload size, for the 6 MB invocation payload limit
 * @param lambdaRecord   the element of {@code Records[]} exactly as the event source mapping delivers it
 */
public record StreamRecord(String sequenceNumber, String partitionKey, Instant arrival, int sizeBytes,
        ObjectNode lambdaRecord) {
}
