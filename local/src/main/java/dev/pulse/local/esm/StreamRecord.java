package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * One record read from a shard, already in the shape Lambda puts in the event's {@code Records} array.
 *
 * @param sequenceNumber the record's sequence number (Kinesis {@code kinesis.sequenceNumber}, DynamoDB
 *                       {@code dynamodb.SequenceNumber}); numeric strings, comparable as big integers
 * @param partitionKey   Kinesis partition key, or null for DynamoDB
 * @param arrival        approximate arrival (Kinesis) or approximate creation time (DynamoDB)
 * @param sizeBytes      payload size, for the 6 MB invocation payload limit
 * @param lambdaRecord   the element of {@code Records[]} exactly as the event source mapping delivers it
 * @param filterView     the document filter patterns are matched against (for Kinesis: the record with
 *                       {@code data} parsed as JSON when it is JSON; for DynamoDB: the record itself)
 */
public record StreamRecord(String sequenceNumber, String partitionKey, Instant arrival, int sizeBytes,
        ObjectNode lambdaRecord, ObjectNode filterView) {
}
