package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/**
 * One Kinesis shard read with GetRecords, each record shaped as the Kinesis event source mapping delivers it
 * (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis.html#services-kinesis-event-example).
 */
public final class KinesisShardSource implements ShardSource {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KinesisClient kinesis;
    private final String streamArn;
    private final String shardId;
    private final String region;
    private String iterator;
    private volatile long millisBehindLatest;

    /**
     * @param position {@code LATEST} or {@code TRIM_HORIZON}; child shards of a resharded stream are always read
     *                 from their start, as Lambda does
     */
    public KinesisShardSource(KinesisClient kinesis, String streamArn, String shardId, String position, String region) {
        this.kinesis = kinesis;
        this.streamArn = streamArn;
        this.shardId = shardId;
        this.region = region;
        // By name: kinesalite predates the StreamARN parameter.
        String name = streamArn.substring(streamArn.indexOf(":stream/") + ":stream/".length());
        this.iterator = kinesis.getShardIterator(b -> b.streamName(name).shardId(shardId)
                .shardIteratorType(ShardIteratorType.fromValue(position))).shardIterator();
    }

    @Override
    public String shardId() {
        return shardId;
    }

    @Override
    public String streamArn() {
        return streamArn;
    }

    /** How far behind the newest record of the shard the last read was (the mapping's iterator age). */
    public long millisBehindLatest() {
        return millisBehindLatest;
    }

    @Override
    public List<StreamRecord> read(int max) {
        if (iterator == null) {
            return List.of();
        }
        String it = iterator;
        GetRecordsResponse r = kinesis.getRecords(b -> b.shardIterator(it).limit(Math.min(max, 10_000)));
        iterator = r.nextShardIterator();
        if (r.millisBehindLatest() != null) {
            millisBehindLatest = r.millisBehindLatest();
        }
        List<StreamRecord> out = new ArrayList<>(r.records().size());
        for (Record rec : r.records()) {
            out.add(convert(rec));
        }
        return out;
    }

    private StreamRecord convert(Record rec) {
        byte[] data = rec.data().asByteArray();
        ObjectNode record = JSON.createObjectNode();
        ObjectNode k = record.putObject("kinesis");
        k.put("kinesisSchemaVersion", "1.0");
        k.put("partitionKey", rec.partitionKey());
        k.put("sequenceNumber", rec.sequenceNumber());
        k.put("data", Base64.getEncoder().encodeToString(data));
        k.put("approximateArrivalTimestamp", BigDecimal.valueOf(rec.approximateArrivalTimestamp().toEpochMilli(), 3));
        record.put("eventSource", "aws:kinesis");
        record.put("eventVersion", "1.0");
        record.put("eventID", shardId + ":" + rec.sequenceNumber());
        record.put("eventName", "aws:kinesis:record");
        record.put("invokeIdentityArn", "arn:aws:iam::000000000000:role/local");
        record.put("awsRegion", region);
        record.put("eventSourceARN", streamArn);
        // Filters see the data as JSON when it is JSON (https://docs.aws.amazon.com/lambda/latest/dg/with-kinesis-filtering.html).
        ObjectNode view = record.deepCopy();
        JsonNode parsed = parse(data);
        if (parsed != null) {
            ((ObjectNode) view.get("kinesis")).set("data", parsed);
        }
        return new StreamRecord(rec.sequenceNumber(), rec.partitionKey(), rec.approximateArrivalTimestamp(),
                data.length + rec.partitionKey().length(), record, view);
    }

    private static JsonNode parse(byte[] data) {
        if (data.length == 0 || (data[0] != '{' && data[0] != '[')) {
            return null;
        }
        try {
            return JSON.readTree(data);
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public boolean exhausted() {
        return iterator == null;
    }
}
