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
import static dev.pulse.ingest.IngestFixture.datapoint;
import static dev.pulse.ingest.IngestFixture.expected;
import static dev.pulse.ingest.IngestFixture.record;
import static dev.pulse.ingest.IngestFixture.records;
import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.testing.DynamoDbLocalExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A record that fails every attempt ({@link AttemptPlan}): the records before it are stored, it is then taken alone,
 * and after three failed attempts of it alone it is set aside to the DLQ with the reason, and the shard moves on.
 * Each case drives the batch the way the event source mapping does (resuming at the reported record) until it is
 * done, and checks that every other record is stored exactly once.
 */
class IngestSetAsideTest {

    /** The host of the datapoint whose record fails: the decoder wrappers below recognise it in the payload. */
    private static final String PILL = "\"host\":\"pill\"";

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;

    @BeforeEach
    void newTable() {
        f = new IngestFixture(DYNAMO.local(), DYNAMO.async(), DYNAMO.reader(), Map.of());
    }

    /** Ten records of two series with the failing one fourth. */
    private static List<KinesisEvent.KinesisEventRecord> batchWithPill() {
        List<KinesisEvent.KinesisEventRecord> batch = new ArrayList<>(records(0, 10, 2, 2));
        batch.set(3, record(3, datapoint("requests", "pill", NOW.toEpochMilli() - 60_000, 1)));
        return batch;
    }

    private static boolean isPill(byte[] data) {
        return new String(data, StandardCharsets.UTF_8).contains(PILL);
    }

    /** Its decoding throws an Error on every attempt, as a record that overflows the stack would. */
    private static UnaryOperator<IngestService.UnitDecoder> throwingOnPill() {
        return d -> (data, pk, ref) -> {
            if (isPill(data)) {
                throw new StackOverflowError();
            }
            return d.decodeUnits(data, pk, ref);
        };
    }

    @Test
    void ingest_whenARecordThrowsOnEveryAttempt_setsItAsideAfterThreeAttemptsAloneAndStoresTheRest() {
        List<KinesisEvent.KinesisEventRecord> batch = batchWithPill();
        KinesisEvent.KinesisEventRecord pill = batch.get(3);
        IngestService service = f.service(throwingOnPill());

        List<IngestResult> results = f.deliver(service, batch, 20);

        assertThat(results).last().satisfies(r -> assertThat(r.failedSequence()).isNull());
        // 1: stores records 0-2, resumes at the pill. 2: fails on it. 3-5: it alone, failing. 6: sets it aside. 7: the
        // rest.
        assertThat(results).hasSize(7);
        assertThat(results.get(0).endedEarly()).contains("record " + seq(pill) + " failed while decoding");
        assertThat(results.get(0).failedSequence()).isEqualTo(seq(pill));
        assertThat(results.subList(1, 5)).allSatisfy(r -> {
            assertThat(r.failed()).isTrue();
            assertThat(r.failedSequence()).isEqualTo(seq(pill));
        });
        assertThat(results.get(5).endedEarly()).isEqualTo("record " + seq(pill) + " was set aside");
        assertThat(f.deadLetterReasons()).containsOnlyKeys(seq(pill));
        assertThat(f.deadLetterReasons().get(seq(pill)))
                .isEqualTo("failed 4 attempts (3 of them with the record alone): record " + seq(pill)
                        + " failed while decoding: java.lang.StackOverflowError");
        assertThat(f.total(IngestMetric.RECORDS_SET_ASIDE)).isEqualTo(1);
        assertThat(f.total(IngestMetric.POISON_RECORDS)).isEqualTo(1);
        assertThat(f.total(IngestMetric.RECORD_FAILURES)).isEqualTo(5);
        List<KinesisEvent.KinesisEventRecord> rest = new ArrayList<>(batch);
        rest.remove(pill);
        assertThat(f.stored()).isEqualTo(expected(rest));
        assertThat(f.committed()).isEqualTo(seq(batch.get(9)));
    }

    /**
     * A record whose decoding kills the function (nothing gets through after it, not even the attempt's own failure
     * note): with no culprit named, each attempt after a crash takes half of the records before the shard's last
     * commit, until the record is alone; three crashes of it alone set it aside, with the reason saying so.
     */
    @Test
    void ingest_whenARecordCrashesTheFunctionOnEveryAttempt_isolatesAndSetsItAsideAndStoresTheRest() {
        List<KinesisEvent.KinesisEventRecord> batch = batchWithPill();
        KinesisEvent.KinesisEventRecord pill = batch.get(3);
        UnaryOperator<IngestService.UnitDecoder> dying = d -> (data, pk, ref) -> {
            if (isPill(data)) {
                f.dynamo.crashAfter(0); // the process is gone: every later call of this attempt fails
                throw new OutOfMemoryError("simulated death while decoding");
            }
            return d.decodeUnits(data, pk, ref);
        };

        List<IngestResult> results = new ArrayList<>();
        List<KinesisEvent.KinesisEventRecord> pending = batch;
        IngestService service = f.service(dying);
        while (!pending.isEmpty() && results.size() < 30) {
            IngestResult r = f.attempt(service, pending);
            results.add(r);
            if (f.dynamo.crashed()) {
                f.dynamo.disarmCrash();
                service = f.service(dying); // Lambda starts a new container after a crash
            }
            pending = r.failedSequence() == null ? List.of() : IngestFixture.from(pending, r.failedSequence());
        }

        assertThat(pending).isEmpty();
        assertThat(results.size())
                .as("isolated in a logarithmic number of attempts")
                .isLessThan(20);
        assertThat(f.deadLetterReasons()).containsOnlyKeys(seq(pill));
        assertThat(f.deadLetterReasons().get(seq(pill)))
                .contains("(3 of them with the record alone)")
                .endsWith("the function crashed or timed out");
        assertThat(f.total(IngestMetric.RECORDS_SET_ASIDE)).isEqualTo(1);
        List<KinesisEvent.KinesisEventRecord> rest = new ArrayList<>(batch);
        rest.remove(pill);
        assertThat(f.stored()).isEqualTo(expected(rest));
    }

    /**
     * A record that failed only while sharing its batch (its failure depends on the batch, not on itself) is stored,
     * not set aside: a record's fate may depend only on the record.
     */
    @Test
    void ingest_whenARecordFailsOnlyInABigBatch_storesItOnceItIsAlone() {
        List<KinesisEvent.KinesisEventRecord> batch = batchWithPill();
        KinesisEvent.KinesisEventRecord pill = batch.get(3);
        java.util.concurrent.atomic.AtomicInteger decodedInAttempt = new java.util.concurrent.atomic.AtomicInteger();
        UnaryOperator<IngestService.UnitDecoder> heapBound = d -> (data, pk, ref) -> {
            // Runs out of "memory" only when it is decoded as the fourth record or later of an attempt.
            if (isPill(data) && decodedInAttempt.get() >= 3) {
                throw new OutOfMemoryError("Java heap space");
            }
            decodedInAttempt.incrementAndGet();
            return d.decodeUnits(data, pk, ref);
        };
        IngestService service = f.service(heapBound);

        List<IngestResult> results = new ArrayList<>();
        List<KinesisEvent.KinesisEventRecord> pending = batch;
        while (!pending.isEmpty() && results.size() < 20) {
            decodedInAttempt.set(0);
            IngestResult r = f.attempt(service, pending);
            results.add(r);
            pending = r.failedSequence() == null ? List.of() : IngestFixture.from(pending, r.failedSequence());
        }

        assertThat(pending).isEmpty();
        assertThat(f.sqs.messages()).isEmpty();
        assertThat(f.total(IngestMetric.RECORDS_SET_ASIDE)).isZero();
        assertThat(f.total(IngestMetric.RECORD_FAILURES)).isEqualTo(1);
        assertThat(results).hasSize(2);
        assertThat(results.get(0).failedSequence()).isEqualTo(seq(pill));
        assertThat(f.stored()).isEqualTo(expected(batch));
    }

    private static String seq(KinesisEvent.KinesisEventRecord r) {
        return r.getKinesis().getSequenceNumber();
    }
}
