package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.ExpiredIteratorException;
import software.amazon.awssdk.services.dynamodb.model.GetRecordsResponse;
import software.amazon.awssdk.services.dynamodb.model.Record;
import software.amazon.awssdk.services.dynamodb.model.ShardIteratorType;
import software.amazon.awssdk.services.dynamodb.streams.DynamoDbStreamsClient;

/**
 * One shard of a DynamoDB table's stream, each record shaped as the DynamoDB event source mapping delivers it
 * (https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html#services-ddb-event-example), attribute values in
 * DynamoDB JSON.
 */
public final class DynamoDbShardSource implements ShardSource {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final DynamoDbStreamsClient streams;
    private final String streamArn;
    private final String shardId;
    private final String region;
    private final String position;
    private String iterator;
    private String lastSequence;

    public DynamoDbShardSource(DynamoDbStreamsClient streams, String streamArn, String shardId, String position, String region) {
        this.streams = streams;
        this.streamArn = streamArn;
        this.shardId = shardId;
        this.region = region;
        this.position = position;
        this.iterator = newIterator();
    }

    /** From the last record read, or from the starting position when none was read yet. */
    private String newIterator() {
        return streams.getShardIterator(b -> {
            b.streamArn(streamArn).shardId(shardId);
            if (lastSequence == null) {
                b.shardIteratorType(ShardIteratorType.fromValue(position));
            } else {
                b.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER).sequenceNumber(lastSequence);
            }
        }).shardIterator();
    }

    @Override
    public String shardId() {
        return shardId;
    }

    @Override
    public String streamArn() {
        return streamArn;
    }

    @Override
    public List<StreamRecord> read(int max) {
        if (iterator == null) {
            return List.of();
        }
        GetRecordsResponse r;
        try {
            String it = iterator;
            r = streams.getRecords(b -> b.shardIterator(it).limit(Math.min(max, 1_000)));
        } catch (ExpiredIteratorException e) {
            // Iterators expire after 15 minutes unused: carry on from the last record read.
            iterator = newIterator();
            return List.of();
        }
        iterator = r.nextShardIterator();
        List<StreamRecord> out = new ArrayList<>(r.records().size());
        for (Record rec : r.records()) {
            out.add(convert(rec));
            lastSequence = rec.dynamodb().sequenceNumber();
        }
        return out;
    }

    private StreamRecord convert(Record rec) {
        ObjectNode record = JSON.createObjectNode();
        record.put("eventID", rec.eventID());
        record.put("eventName", rec.eventNameAsString());
        record.put("eventVersion", rec.eventVersion());
        record.put("eventSource", "aws:dynamodb");
        record.put("awsRegion", region);
        ObjectNode d = record.putObject("dynamodb");
        var s = rec.dynamodb();
        Instant created = s.approximateCreationDateTime() == null ? Instant.now() : s.approximateCreationDateTime();
        d.put("ApproximateCreationDateTime", BigDecimal.valueOf(created.getEpochSecond()));
        d.set("Keys", item(s.keys()));
        if (s.hasNewImage()) {
            d.set("NewImage", item(s.newImage()));
        }
        if (s.hasOldImage()) {
            d.set("OldImage", item(s.oldImage()));
        }
        d.put("SequenceNumber", s.sequenceNumber());
        d.put("SizeBytes", s.sizeBytes());
        d.put("StreamViewType", s.streamViewTypeAsString());
        record.put("eventSourceARN", streamArn);
        if (rec.userIdentity() != null) {
            record.putObject("userIdentity").put("type", rec.userIdentity().type()).put("principalId", rec.userIdentity().principalId());
        }
        return new StreamRecord(s.sequenceNumber(), null, created, record.toString().length() + 1, record, record);
    }

    private static ObjectNode item(Map<String, AttributeValue> item) {
        ObjectNode o = JSON.createObjectNode();
        item.forEach((k, v) -> o.set(k, value(v)));
        return o;
    }

    /** DynamoDB JSON: {"S": ...}, {"N": "1"}, {"B": base64}, {"M": {...}}, {"L": [...]}, sets, BOOL, NULL. */
    static ObjectNode value(AttributeValue v) {
        ObjectNode o = JSON.createObjectNode();
        switch (v.type()) {
            case S -> o.put("S", v.s());
            case N -> o.put("N", v.n());
            case B -> o.put("B", b64(v.b()));
            case BOOL -> o.put("BOOL", v.bool());
            case NUL -> o.put("NULL", true);
            case M -> o.set("M", item(v.m()));
            case L -> {
                ArrayNode a = o.putArray("L");
                v.l().forEach(x -> a.add(value(x)));
            }
            case SS -> v.ss().forEach(o.putArray("SS")::add);
            case NS -> v.ns().forEach(o.putArray("NS")::add);
            case BS -> {
                ArrayNode a = o.putArray("BS");
                v.bs().forEach(x -> a.add(b64(x)));
            }
            default -> throw new IllegalArgumentException("unknown attribute type " + v.type());
        }
        return o;
    }

    private static String b64(SdkBytes b) {
        return Base64.getEncoder().encodeToString(b.asByteArray());
    }

    @Override
    public boolean exhausted() {
        return iterator == null;
    }
}
