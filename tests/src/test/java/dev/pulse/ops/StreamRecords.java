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
package dev.pulse.ops;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.GetRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.Record;
import software.amazon.awssdk.services.kinesis.model.Shard;
import software.amazon.awssdk.services.kinesis.model.ShardIteratorType;

/** Everything on a stream, read from the trim horizon of each shard to its tip. */
final class StreamRecords {

    /** One record as the stream holds it. */
    record Rec(String shardId, String sequenceNumber, String partitionKey, byte[] data, Instant arrival) {

        /** What a redrive must preserve: partition key and data. */
        Content content() {
            return new Content(partitionKey, Base64.getEncoder().encodeToString(data));
        }
    }

    /** Partition key and data (base64), comparable by value. */
    record Content(String partitionKey, String dataBase64) {}

    private StreamRecords() {}

    static List<Rec> all(KinesisAsyncClient kinesis, String stream) {
        List<Rec> all = new ArrayList<>();
        for (Shard shard : kinesis.listShards(b -> b.streamName(stream)).join().shards()) {
            all.addAll(shard(kinesis, stream, shard.shardId()));
        }
        return all;
    }

    static List<Rec> shard(KinesisAsyncClient kinesis, String stream, String shardId) {
        List<Rec> records = new ArrayList<>();
        String iterator = kinesis.getShardIterator(
                        b -> b.streamName(stream).shardId(shardId).shardIteratorType(ShardIteratorType.TRIM_HORIZON))
                .join()
                .shardIterator();
        while (iterator != null) {
            String it = iterator;
            GetRecordsResponse page =
                    kinesis.getRecords(b -> b.shardIterator(it).limit(1000)).join();
            for (Record r : page.records()) {
                records.add(new Rec(
                        shardId,
                        r.sequenceNumber(),
                        r.partitionKey(),
                        r.data().asByteArray(),
                        r.approximateArrivalTimestamp()));
            }
            if (page.records().isEmpty() && page.millisBehindLatest() != null && page.millisBehindLatest() == 0) {
                break;
            }
            iterator = page.nextShardIterator();
        }
        return records;
    }
}
