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

import static dev.pulse.ingest.IngestFixture.NOW;
import static dev.pulse.ingest.IngestFixture.SHARD;
import static dev.pulse.ingest.IngestFixture.datapoint;
import static dev.pulse.ingest.IngestFixture.expected;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.store.schema.KeyScheme;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.KinesisRecords;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Records PushFunction put ({@code push-<n>} partition keys) are stored once by content: a client that sends its
 * request again has the same records put again under new sequence numbers, and ingest skips them. DynamoDB Local
 * evaluates the content claims' conditions.
 */
class IngestResendTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
    }

    /** Record {@code n} with the content of request {@code request}'s piece {@code piece}, under {@code key}. */
    private static KinesisEvent.KinesisEventRecord piece(long n, int request, int piece, String key) {
        long ts = NOW.toEpochMilli() - 60_000L * (1 + piece % 3) + 1_000L * request;
        byte[] json = datapoint("pushed", "h" + piece, ts, 1 + request + piece).getBytes(StandardCharsets.UTF_8);
        return KinesisRecords.record(SHARD, n, key, json, NOW.toEpochMilli());
    }

    /** Request {@code request} as PushFunction puts it: {@code pieces} records from sequence {@code first} on. */
    private static List<KinesisEvent.KinesisEventRecord> request(long first, int request, int pieces) {
        List<KinesisEvent.KinesisEventRecord> out = new ArrayList<>();
        for (int p = 0; p < pieces; p++) {
            out.add(piece(first + p, request, p, ShardCheckpoints.PUSHED_PARTITION_KEY_PREFIX + p));
        }
        return out;
    }

    @Test
    void ingest_whenAPushedRequestIsPutAgainInALaterBatch_storesItOnce() {
        List<KinesisEvent.KinesisEventRecord> sent = request(0, 1, 4);
        List<KinesisEvent.KinesisEventRecord> sentAgain = request(4, 1, 4);
        IngestService service = f.service();

        IngestResult first = f.attempt(service, sent);
        IngestResult second = f.attempt(service, sentAgain);

        assertThat(first.failed()).isFalse();
        assertThat(second.failed()).isFalse();
        assertThat(second.datapoints()).isZero();
        assertThat(f.attempts.get(1).count(IngestMetric.RESENT_RECORDS)).isEqualTo(4);
        assertThat(f.stored()).isEqualTo(expected(sent));
        assertThat(f.committed()).isEqualTo(KinesisRecords.sequence(7));
    }

    @Test
    void ingest_whenOneBatchHoldsARequestAndItsResend_storesItOnceBesideOtherRequests() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(request(0, 1, 3));
        batch.addAll(request(3, 2, 3));
        batch.addAll(request(6, 1, 3)); // request 1 again, after request 2
        List<KinesisEvent.KinesisEventRecord> once = new ArrayList<>(batch.subList(0, 6));

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(r.datapoints()).isEqualTo(6);
        assertThat(f.total(IngestMetric.RESENT_RECORDS)).isEqualTo(3);
        assertThat(f.stored()).isEqualTo(expected(once));
    }

    @Test
    void ingest_whenTheBatchFailsAfterItsClaimsAndIsDeliveredAgain_storesEachContentOnceOwnedByItsFirstRecord() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(request(0, 1, 3));
        batch.addAll(request(3, 1, 3));
        IngestService service = f.service();
        // The shard's claim is the first write call; the batch dies at the one after the content claims.
        f.dynamo.crashAfter(1);

        IngestResult crashed = f.attempt(service, batch);
        f.dynamo.disarmCrash();
        List<IngestResult> after = f.deliver(service, batch, 5);

        assertThat(crashed.failed()).isTrue();
        assertThat(f.dynamo.crashesInjected.get()).isEqualTo(1);
        assertThat(after.getLast().failed()).as("%s", after).isFalse();
        assertThat(after.getLast().failedSequence()).as("%s", after).isNull();
        assertThat(f.stored()).isEqualTo(expected(batch.subList(0, 3)));
        assertThat(f.total(IngestMetric.RESENT_RECORDS) - f.attempts.getFirst().count(IngestMetric.RESENT_RECORDS))
                .as("records 3 to 5, once each; the first three meet their own claims")
                .isEqualTo(3);
        assertThat(f.items().stream()
                        .filter(i -> i.get(KeyScheme.PK).s().startsWith(ShardCheckpoints.CONTENT_PREFIX))
                        .map(i -> i.get(ShardCheckpoints.OWNER).s()))
                .containsExactlyInAnyOrder(
                        IngestFixture.CHECKPOINT + "#" + KinesisRecords.sequence(0),
                        IngestFixture.CHECKPOINT + "#" + KinesisRecords.sequence(1),
                        IngestFixture.CHECKPOINT + "#" + KinesisRecords.sequence(2));
    }

    @ParameterizedTest(name = "partition key {0}")
    @ValueSource(strings = {"pk-0", "pusher-0", "Push-0", ""})
    void ingest_whenRecordsOfOtherProducersRepeatTheirContent_storesEveryRecord(String key) {
        List<KinesisEvent.KinesisEventRecord> batch = List.of(piece(0, 1, 0, key), piece(1, 1, 0, key));

        IngestResult r = f.attempt(f.service(), batch);

        assertThat(r.failed()).isFalse();
        assertThat(r.datapoints()).isEqualTo(2);
        assertThat(f.total(IngestMetric.RESENT_RECORDS)).isZero();
        assertThat(f.items())
                .as("no content claim for records PushFunction did not put")
                .noneMatch(item -> item.get(KeyScheme.PK).s().startsWith(ShardCheckpoints.CONTENT_PREFIX));
    }

    @Test
    void ingest_whenAClaimHasExpired_storesTheContentAgainForItsNewRecord() {
        IngestService service = f.service();
        f.attempt(service, request(0, 1, 1));
        // The claim lives until a resend (arrived within a day) can no longer be attempted: the redrive window after
        // that day.
        Duration life = Duration.ofSeconds(ShardCheckpoints.CONTENT_TTL_SECONDS)
                .plus(f.config.redriveWindow())
                .plusMinutes(1);
        f.clock.advance(life);

        // No client sends a request again a day later: the same bytes then are stored again.
        KinesisEvent.Record same =
                piece(1, 1, 0, ShardCheckpoints.PUSHED_PARTITION_KEY_PREFIX + 0).getKinesis();
        IngestResult later = f.attempt(
                service,
                List.of(KinesisRecords.record(
                        SHARD,
                        1,
                        same.getPartitionKey(),
                        same.getData().array(),
                        NOW.plus(life).toEpochMilli())));

        assertThat(later.datapoints()).isEqualTo(1);
        assertThat(f.attempts.get(1).count(IngestMetric.RESENT_RECORDS)).isZero();
        Map<String, AttributeValue> claim = f.items().stream()
                .filter(i -> i.get(KeyScheme.PK).s().startsWith(ShardCheckpoints.CONTENT_PREFIX))
                .findFirst()
                .orElseThrow();
        assertThat(claim.get(ShardCheckpoints.OWNER).s()).endsWith("#" + KinesisRecords.sequence(1));
    }
}
