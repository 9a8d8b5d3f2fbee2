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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.codec.KplAggregate;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.RecordingKinesis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;

/** The sender's KPL aggregation against a client that records what it was given and accepts everything. */
class KinesisSenderAggregationTest {

    /** Accepts every record; keeps the entries in the order they were put. */
    private static List<ReplayRecord> records(int n, int bytes) {
        List<ReplayRecord> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            String body = "{\"name\":\"m\",\"value\":" + i + ",\"pad\":\"" + "x".repeat(bytes) + "\"}";
            out.add(new ReplayRecord(body.getBytes(StandardCharsets.UTF_8), "pk-" + (i % 7), 0));
        }
        return out;
    }

    private static SendReport run(KinesisSender sender, List<ReplayRecord> records) {
        return sender.run(
                records, Schedule.rate(20_000, 0), 20_000, 0, 2, records.size(), Deadline.inMillis(10_000), null);
    }

    @Test
    void run_whenAggregating_sendsEveryRecordOnceInOrderInFewerKinesisRecordsAndPayloadUnits() throws Exception {
        RecordingKinesis client = RecordingKinesis.accepting();
        List<ReplayRecord> records = records(2_000, 200);

        SendReport r = run(new KinesisSender(client, "s", new Backoff(1, 10), 3).withAggregation(51_200), records);

        List<String> received = new ArrayList<>();
        for (PutRecordsRequestEntry e : client.stored()) {
            byte[] data = e.data().asByteArray();
            assertThat(data.length + e.partitionKey().length()).isLessThanOrEqualTo(51_200 + 16);
            if (KplAggregate.isAggregate(data)) {
                KplAggregate.read(data).forEach(u -> received.add(u.partitionKey() + " " + new String(u.data())));
            } else {
                received.add(e.partitionKey() + " " + new String(data));
            }
        }
        assertThat(received)
                .containsExactlyElementsOf(records.stream()
                        .map(x -> x.partitionKey() + " " + new String(x.data()))
                        .toList());
        assertThat(r.sent()).isEqualTo(2_000);
        assertThat(r.acked()).isEqualTo(2_000);
        assertThat(r.latency().count()).isEqualTo(2_000);
        assertThat(r.units().kinesisRecords()).isEqualTo(client.stored().size()).isLessThan(2_000);
        assertThat(r.units().putPayloadUnitsUnaggregated()).isEqualTo(2_000);
        assertThat(r.units().putPayloadUnits()).isLessThan(r.units().putPayloadUnitsUnaggregated());
    }

    @Test
    void run_whenNotAggregating_sendsOneKinesisRecordPerRecordAndTheSameUnitsBothWays() {
        RecordingKinesis client = RecordingKinesis.accepting();

        SendReport r = run(new KinesisSender(client, "s", new Backoff(1, 10), 3), records(500, 30_000));

        assertThat(client.stored())
                .hasSize(500)
                .noneMatch(e -> KplAggregate.isAggregate(e.data().asByteArray()));
        assertThat(r.units().kinesisRecords()).isEqualTo(500);
        assertThat(r.units().putPayloadUnits())
                .isEqualTo(1_000)
                .isEqualTo(r.units().putPayloadUnitsUnaggregated());
    }

    @Test
    void run_whenAggregatingUnderALongMultiByteKey_everyKinesisRecordFitsOneMiBWithItsKey() {
        RecordingKinesis client = RecordingKinesis.accepting();
        String key = "\uD83D\uDE00".repeat(ReplaySource.MAX_PARTITION_KEY_CHARS); // 256 characters, 1,024 bytes
        // Two records whose aggregate is just within the largest maxAggregateBytes (1 MiB - 256) by the packing bound:
        // magic and MD5 (20), the key's table entry (1,027) and two records of 523,622 bytes (at most 14 bytes of
        // framing each) make 1,048,319; with the 1,024-byte key Kinesis would count more than 1 MiB.
        List<ReplayRecord> records =
                List.of(new ReplayRecord(new byte[523_622], key, 0), new ReplayRecord(new byte[523_622], key, 0));
        KinesisSender sender = new KinesisSender(client, "s", new Backoff(1, 10), 3)
                .withAggregation(LoadGenRequest.MAX_AGGREGATE_BYTES);

        SendReport r = sender.run(
                records, Schedule.rate(1_000_000, 0), 1_000_000, 0, 1, records.size(), Deadline.inMillis(10_000), null);

        assertThat(r.acked()).isEqualTo(2);
        assertThat(client.stored())
                .isNotEmpty()
                .allSatisfy(e -> assertThat(e.data().asByteArray().length
                                + e.partitionKey().getBytes(StandardCharsets.UTF_8).length)
                        .isLessThanOrEqualTo(ReplaySource.MAX_RECORD_BYTES));
    }
}
