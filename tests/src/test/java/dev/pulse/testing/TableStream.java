package dev.pulse.testing;

import dev.pulse.local.emulator.LocalDynamoDb;
import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamRecord;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.Shard;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * Reads a DynamoDB Local table's stream from the start and hands out the records not read yet, converted to
 * the Lambda events model exactly as the DynamoDB event source mapping delivers them.
 */
public final class TableStream implements AutoCloseable {

    private final DynamoDbStreamsClient streams;
    private final String streamArn;
    private final Map<String, String> iterators = new LinkedHashMap<>();

    public TableStream(DynamoDbStreamsClient streams, String streamArn) {
        this.streams = streams;
        this.streamArn = streamArn;
    }

    /** The stream of {@code table} in DynamoDB Local, read from its start. */
    public static TableStream of(LocalDynamoDb dynamo, String table) {
        try (var c = dynamo.client()) {
            String arn = c.describeTable(b -> b.tableName(table)).table().latestStreamArn();
            return new TableStream(dynamo.streamsClient(), arn);
        }
    }

    /** Every record written since the last call, in shard order. */
    public List<DynamodbEvent.DynamodbStreamRecord> poll() {
        for (Shard shard : streams.describeStream(b -> b.streamArn(streamArn)).streamDescription().shards()) {
            iterators.computeIfAbsent(shard.shardId(), id -> streams.getShardIterator(b -> b.streamArn(streamArn)
                    .shardId(id).shardIteratorType(ShardIteratorType.TRIM_HORIZON)).shardIterator());
        }
        List<DynamodbEvent.DynamodbStreamRecord> out = new ArrayList<>();
        for (Map.Entry<String, String> e : iterators.entrySet()) {
            String it = e.getValue();
            while (it != null) {
                String current = it;
                var resp = streams.getRecords(b -> b.shardIterator(current).limit(1000));
                resp.records().forEach(r -> out.add(toLambda(r)));
                it = resp.nextShardIterator();
                if (resp.records().isEmpty()) {
                    break;
                }
            }
            e.setValue(it);
        }
        return out;
    }

    static DynamodbEvent.DynamodbStreamRecord toLambda(Record r) {
        StreamRecord sr = new StreamRecord();
        sr.setKeys(convert(r.dynamodb().keys()));
        if (r.dynamodb().hasNewImage()) {
            sr.setNewImage(convert(r.dynamodb().newImage()));
        }
        sr.setSequenceNumber(r.dynamodb().sequenceNumber());
        sr.setStreamViewType(com.amazonaws.services.lambda.runtime.events.models.dynamodb.StreamViewType.fromValue(
                r.dynamodb().streamViewTypeAsString()));
        if (r.dynamodb().approximateCreationDateTime() != null) {
            sr.setApproximateCreationDateTime(Date.from(r.dynamodb().approximateCreationDateTime()));
        }
        DynamodbEvent.DynamodbStreamRecord out = new DynamodbEvent.DynamodbStreamRecord();
        out.setEventID(r.eventID());
        out.setEventName(r.eventNameAsString());
        out.setEventSource("aws:dynamodb");
        out.setAwsRegion("us-east-1");
        out.setDynamodb(sr);
        return out;
    }

    private static Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> convert(
            Map<String, AttributeValue> in) {
        Map<String, com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue> out = new HashMap<>();
        in.forEach((k, v) -> out.put(k, convert(v)));
        return out;
    }

    private static com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue convert(AttributeValue v) {
        var out = new com.amazonaws.services.lambda.runtime.events.models.dynamodb.AttributeValue();
        if (v.s() != null) {
            out.setS(v.s());
        } else if (v.n() != null) {
            out.setN(v.n());
        } else if (v.b() != null) {
            out.setB(ByteBuffer.wrap(v.b().asByteArray()));
        } else if (v.hasM()) {
            out.setM(convert(v.m()));
        } else if (v.bool() != null) {
            out.setBOOL(v.bool());
        }
        return out;
    }

    @Override
    public void close() {
        streams.close();
    }
}
