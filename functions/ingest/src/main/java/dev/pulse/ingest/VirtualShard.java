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
package dev.pulse.ingest;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.nio.ByteBuffer;
import java.util.Date;

/**
 * Records that did not come from Kinesis (recording rules' samples, Firehose deliveries) stored through ingest's
 * exactly-once path as if a shard of their own had delivered them: the shard's checkpoint skips what an earlier attempt
 * committed, and attempts at the same records write the same partial slots (docs/design.md, "Exactly once"). The
 * shard and the sequence numbers must be the same on every attempt at the same records.
 */
public final class VirtualShard {

    private final String streamArn;
    private final String shard;

    /**
     * @param region the region the stream ARN names
     * @param stream the stream name the shard's checkpoint is kept under ({@code W#<stream>#<shard>})
     * @param shard  the shard: no character ingest's event ids or keys give a meaning to ({@code #}, {@code :})
     */
    public VirtualShard(String region, String stream, String shard) {
        if (shard.indexOf('#') >= 0 || shard.indexOf(':') >= 0) {
            throw new IllegalArgumentException("a shard name must not hold '#' or ':': " + shard);
        }
        this.streamArn = "arn:aws:kinesis:" + region + ":000000000000:stream/" + stream;
        this.shard = shard;
    }

    /** A record of this shard at {@code sequence} (a decimal number), arrived at {@code arrivalMillis}. */
    public KinesisEvent.KinesisEventRecord record(String sequence, byte[] data, long arrivalMillis) {
        KinesisEvent.Record k = new KinesisEvent.Record();
        k.setSequenceNumber(sequence);
        k.setPartitionKey(shard);
        k.setData(ByteBuffer.wrap(data));
        // The Lambda events library's record takes a java.util.Date; there is no java.time setter.
        @SuppressWarnings("JavaUtilDate")
        Date arrival = new Date(arrivalMillis);
        k.setApproximateArrivalTimestamp(arrival);
        k.setKinesisSchemaVersion("1.0");
        KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
        r.setKinesis(k);
        r.setEventID(shard + ":" + sequence);
        r.setEventSource("aws:kinesis");
        r.setEventName("aws:kinesis:record");
        r.setEventVersion("1.0");
        r.setEventSourceARN(streamArn);
        return r;
    }
}
