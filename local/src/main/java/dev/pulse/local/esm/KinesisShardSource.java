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
package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.services.kinesis.KinesisClient;
import software.amazon.awssdk.services.kinesis.model.ExpiredIteratorException;
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
    private final String streamName;
    private final String position;
    private String iterator;
    private String lastSequence;
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
        this.streamName = streamArn.substring(streamArn.indexOf(":stream/") + ":stream/".length());
        this.position = position;
        this.iterator = newIterator();
    }

    /** From the last record read, or from the starting position when none was read yet. */
    private String newIterator() {
        return kinesis.getShardIterator(b -> {
                    b.streamName(streamName).shardId(shardId);
                    if (lastSequence == null) {
                        b.shardIteratorType(ShardIteratorType.fromValue(position));
                    } else {
                        b.shardIteratorType(ShardIteratorType.AFTER_SEQUENCE_NUMBER)
                                .startingSequenceNumber(lastSequence);
                    }
                })
                .shardIterator();
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
        GetRecordsResponse r;
        try {
            String it = iterator;
            r = kinesis.getRecords(b -> b.shardIterator(it).limit(Math.min(max, 10_000)));
        } catch (ExpiredIteratorException e) {
            // Iterators expire after 5 minutes unused (a batch retried that long, a suspended laptop): carry on
            // from the last record read, as the event source mapping does from its checkpoint.
            iterator = newIterator();
            return List.of();
        }
        iterator = r.nextShardIterator();
        if (r.millisBehindLatest() != null) {
            millisBehindLatest = r.millisBehindLatest();
        }
        List<StreamRecord> out = new ArrayList<>(r.records().size());
        for (Record rec : r.records()) {
            out.add(convert(rec));
            lastSequence = rec.sequenceNumber();
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
        k.put(
                "approximateArrivalTimestamp",
                BigDecimal.valueOf(rec.approximateArrivalTimestamp().toEpochMilli(), 3));
        record.put("eventSource", "aws:kinesis");
        record.put("eventVersion", "1.0");
        record.put("eventID", shardId + ":" + rec.sequenceNumber());
        record.put("eventName", "aws:kinesis:record");
        record.put("invokeIdentityArn", "arn:aws:iam::000000000000:role/local");
        record.put("awsRegion", region);
        record.put("eventSourceARN", streamArn);
        // The invocation payload carries the record as JSON (data in base64), which is what the 6 MB limit counts.
        return new StreamRecord(
                rec.sequenceNumber(),
                rec.partitionKey(),
                rec.approximateArrivalTimestamp(),
                record.toString().length() + 1,
                record);
    }

    @Override
    public boolean exhausted() {
        return iterator == null;
    }
}
