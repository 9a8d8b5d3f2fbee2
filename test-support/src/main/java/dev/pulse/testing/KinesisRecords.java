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
package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/** Builds Kinesis event records and batches the way the event source mapping delivers them. */
public final class KinesisRecords {

    /** The stream the tests' records come from; its name is part of ingest's shard checkpoint key. */
    public static final String TEST_STREAM_ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-test";

    private static final BigInteger SEQ_BASE =
            new BigInteger("49590338271490256608559692538361571095921575989136000000");

    private KinesisRecords() {}

    /** A 56-digit sequence number; increasing with {@code n}, as within a shard. */
    public static String sequence(long n) {
        return SEQ_BASE.add(BigInteger.valueOf(n)).toString();
    }

    /** Record {@code n} of {@code shardId} on the test stream. */
    public static KinesisEvent.KinesisEventRecord record(
            String shardId, long n, String partitionKey, byte[] data, long arrivalMillis) {
        return record(TEST_STREAM_ARN, shardId, sequence(n), partitionKey, data, arrivalMillis);
    }

    /** One record of {@code streamArn}'s shard {@code shardId}, as Lambda delivers it. */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    public static KinesisEvent.KinesisEventRecord record(
            String streamArn,
            String shardId,
            String sequenceNumber,
            String partitionKey,
            byte[] data,
            long arrivalMillis) {
        KinesisEvent.Record k = new KinesisEvent.Record();
        k.setSequenceNumber(sequenceNumber);
        k.setPartitionKey(partitionKey);
        k.setData(ByteBuffer.wrap(data));
        k.setApproximateArrivalTimestamp(new Date(arrivalMillis));
        k.setKinesisSchemaVersion("1.0");
        KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
        r.setKinesis(k);
        r.setEventID(shardId + ":" + sequenceNumber);
        r.setEventSource("aws:kinesis");
        r.setEventName("aws:kinesis:record");
        r.setEventVersion("1.0");
        r.setEventSourceARN(streamArn);
        r.setAwsRegion("us-east-1");
        return r;
    }

    /**
     * {@code data} as one batch from {@code streamArn}'s shard {@code shardId}: sequence numbers from
     * {@code firstSequence} on, partition keys {@code pk-0} to {@code pk-63} in turn, all arrived at
     * {@code arrivalMillis}.
     */
    public static KinesisEvent event(
            String streamArn, String shardId, List<byte[]> data, long firstSequence, long arrivalMillis) {
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>(data.size());
        for (int i = 0; i < data.size(); i++) {
            records.add(record(
                    streamArn, shardId, sequence(firstSequence + i), "pk-" + (i % 64), data.get(i), arrivalMillis));
        }
        KinesisEvent event = new KinesisEvent();
        event.setRecords(records);
        return event;
    }
}
