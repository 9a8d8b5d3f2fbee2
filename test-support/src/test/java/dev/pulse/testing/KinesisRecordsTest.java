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

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class KinesisRecordsTest {

    private static final String ARN = "arn:aws:kinesis:us-east-1:123456789012:stream/pulse-bench";

    @Test
    void sequence_whenNGrows_isA56DigitNumberThatGrowsWithIt() {
        String a = KinesisRecords.sequence(1);
        String b = KinesisRecords.sequence(2);

        assertThat(a).hasSize(56).containsOnlyDigits();
        assertThat(new BigInteger(b).subtract(new BigInteger(a))).isEqualTo(BigInteger.ONE);
    }

    @Test
    void event_whenGivenPayloads_numbersThemAsOneShardBatch() {
        List<byte[]> data = List.of(bytes("a"), bytes("b"), bytes("c"));
        KinesisEvent event = KinesisRecords.event(ARN, "shardId-000000000003", data, 7, 1_795_262_400_000L);

        assertThat(event.getRecords()).hasSize(3);
        for (int i = 0; i < 3; i++) {
            KinesisEvent.KinesisEventRecord r = event.getRecords().get(i);
            assertThat(r.getKinesis().getSequenceNumber()).isEqualTo(KinesisRecords.sequence(7 + i));
            assertThat(r.getEventID()).isEqualTo("shardId-000000000003:" + KinesisRecords.sequence(7 + i));
            assertThat(r.getKinesis().getPartitionKey()).isEqualTo("pk-" + i);
            assertThat(r.getKinesis().getData()).isEqualTo(java.nio.ByteBuffer.wrap(data.get(i)));
            assertThat(r.getKinesis().getApproximateArrivalTimestamp().getTime())
                    .isEqualTo(1_795_262_400_000L);
            assertThat(r.getEventSourceARN()).isEqualTo(ARN);
            assertThat(r.getEventSource()).isEqualTo("aws:kinesis");
        }
    }

    @Test
    void record_whenNoStreamGiven_comesFromTheTestStream() {
        KinesisEvent.KinesisEventRecord r = KinesisRecords.record("shardId-000000000000", 5, "pk", bytes("x"), 1_000);

        assertThat(r.getEventSourceARN()).isEqualTo(KinesisRecords.TEST_STREAM_ARN);
        assertThat(r.getKinesis().getSequenceNumber()).isEqualTo(KinesisRecords.sequence(5));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
