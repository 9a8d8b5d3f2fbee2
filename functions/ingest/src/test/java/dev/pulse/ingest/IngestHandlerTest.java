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

import static dev.pulse.ingest.IngestFixture.expected;
import static dev.pulse.ingest.IngestFixture.records;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.events.StreamsEventResponse;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.amazonaws.services.lambda.runtime.tests.annotations.Event;
import com.amazonaws.services.lambda.runtime.tests.annotations.Events;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link IngestHandler} as Lambda invokes it: the bundled events of {@code events/} (loaded by aws-lambda-java-tests,
 * as {@code sam local invoke} would send them) store exactly what {@code events/expected/} says; the invocation's
 * deadline ends an attempt early with a partial batch response that resumes exactly where it stopped; and one EMF
 * document per invocation carries the counts.
 */
class IngestHandlerTest {

    /** The template's: it holds the second the failed attempt's release may take after its deadline. */
    private static final long SAFETY_MARGIN_MS = 3_000;

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private IngestFixture f;
    private final RecordingMetrics metrics = new RecordingMetrics();

    @BeforeEach
    void newTable() {
        f = new IngestFixture(
                DYNAMO.local(),
                DYNAMO.async(),
                DYNAMO.reader(),
                Map.of("SAFETY_MARGIN_MS", Long.toString(SAFETY_MARGIN_MS)));
    }

    private IngestHandler handler(IngestService service) {
        return IngestFunction.handler(service, metrics, SAFETY_MARGIN_MS);
    }

    private static List<String> failures(StreamsEventResponse response) {
        return response.getBatchItemFailures().stream()
                .map(StreamsEventResponse.BatchItemFailure::getItemIdentifier)
                .toList();
    }

    private static KinesisEvent event(List<KinesisEvent.KinesisEventRecord> records) {
        KinesisEvent e = new KinesisEvent();
        e.setRecords(new ArrayList<>(records));
        return e;
    }

    /** Every bundled Kinesis event: stored once, a redelivery changes nothing, and nothing in it fails the batch. */
    @ParameterizedTest
    @Events(
            events = {
                @Event("events/ingest-kinesis-native.json"),
                @Event("events/ingest-kinesis-cwlogs.json"),
                @Event("events/ingest-kinesis-kpl.json"),
                @Event("events/ingest-kinesis-otlp.json"),
                @Event("events/ingest-kinesis-poison.json")
            },
            type = KinesisEvent.class)
    void handleRequest_whenABundledEventIsDeliveredTwice_storesItOnce(KinesisEvent event) {
        IngestHandler handler = handler(f.service());

        StreamsEventResponse first = handler.handleRequest(event, new TestContext("first", 30_000, 1024));
        Map<String, Map<Long, List<Double>>> stored = f.stored();
        StreamsEventResponse again = handler.handleRequest(event, new TestContext("again", 30_000, 1024));

        assertThat(failures(first)).isEmpty();
        assertThat(failures(again)).isEmpty();
        assertThat(stored).isNotEmpty();
        assertThat(f.stored()).isEqualTo(stored);
        assertThat(metrics.documents()).hasSize(2);
        assertThat(metrics.documents().get(1))
                .containsEntry(
                        "AlreadyStoredRecords", (double) event.getRecords().size())
                .containsEntry("DatapointsIn", 0.0)
                .containsEntry("PoisonRecords", 0.0);
    }

    /**
     * Each bundled event stores exactly the count, sum, min and max per series and minute that {@code events/expected/}
     * holds (computed by scripts/gen_events.py from the same input), and sends exactly its poison records to the DLQ.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(
            strings = {
                "ingest-kinesis-native",
                "ingest-kinesis-cwlogs",
                "ingest-kinesis-kpl",
                "ingest-kinesis-otlp",
                "ingest-kinesis-poison"
            })
    void handleRequest_whenABundledEventIsIngested_storesWhatItsExpectationsFileSays(String name) throws IOException {
        KinesisEvent event = EventLoader.loadEvent("events/" + name + ".json", KinesisEvent.class);
        JsonNode want;
        try (InputStream in = getClass().getClassLoader().getResourceAsStream("events/expected/" + name + ".json")) {
            want = new ObjectMapper().readTree(in);
        }
        f.clock.set(Instant.ofEpochMilli(want.get("now").asLong()));

        StreamsEventResponse response = handler(f.service()).handleRequest(event, new TestContext("r", 30_000, 1024));

        assertThat(failures(response)).isEmpty();
        Map<String, Map<Long, List<Double>>> expectedSeries = new TreeMap<>();
        want.get("series")
                .fields()
                .forEachRemaining(s -> s.getValue()
                        .fields()
                        .forEachRemaining(m -> expectedSeries
                                .computeIfAbsent(s.getKey(), k -> new TreeMap<>())
                                .put(
                                        Long.parseLong(m.getKey()),
                                        List.of(
                                                m.getValue().get("count").asDouble(),
                                                        m.getValue().get("sum").asDouble(),
                                                m.getValue().get("min").asDouble(),
                                                        m.getValue().get("max").asDouble()))));
        assertThat(f.stored()).isEqualTo(expectedSeries);
        List<String> poison = new ArrayList<>();
        want.get("poisonSequenceNumbers").forEach(n -> poison.add(n.asText()));
        assertThat(f.sqs.sequenceNumbers()).containsExactlyInAnyOrderElementsOf(poison);
        assertThat(metrics.last("RecordsIn")).isEqualTo(want.get("records").asLong());
        assertThat(metrics.last("DatapointsIn"))
                .isEqualTo(want.get("datapoints").asLong());
        assertThat(metrics.last("PoisonRecords"))
                .isEqualTo(want.get("poisonRecords").asLong());
        assertThat(metrics.last("SkippedEvents"))
                .isEqualTo(want.get("skippedEvents").asLong());
    }

    /** The poison mix as Lambda sees it: no batch item failure (poison never fails a batch), the reason in the DLQ. */
    @ParameterizedTest
    @Event(value = "events/ingest-kinesis-poison.json", type = KinesisEvent.class)
    void handleRequest_whenTheEventHoldsPoison_reportsNoFailureAndSendsTheReason(KinesisEvent event) {
        StreamsEventResponse response = handler(f.service()).handleRequest(event, new TestContext("p", 30_000, 1024));

        assertThat(failures(response)).isEmpty();
        assertThat(f.deadLetterReasons())
                .hasSize(1)
                .allSatisfy((seq, reason) -> assertThat(reason).startsWith("invalid JSON"));
        assertThat(f.committed("pulse-stream"))
                .isEqualTo(event.getRecords()
                        .get(event.getRecords().size() - 1)
                        .getKinesis()
                        .getSequenceNumber());
    }

    /**
     * Decoding that takes more than half of what the invocation has left ends the attempt before the Lambda
     * deadline: either early, with what was decoded stored and committed and a partial batch response naming the
     * first record not stored, or (when the slow record itself ran the attempt out of time) failed, with that record
     * named on the checkpoint so the next attempt stores the records before it first. Which one depends on the
     * machine's speed; either way every invocation returns in time, Lambda resumes at the reported record, nothing is
     * lost or stored twice, and a slow record is never poison.
     */
    @Test
    void handleRequest_whenDecodingUsesHalfTheTime_endsBeforeTheDeadlineAndResumesExactly() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 30, 3, 2);
        byte[] slowData = new byte[batch.get(5).getKinesis().getData().remaining()];
        batch.get(5).getKinesis().getData().duplicate().get(slowData);
        long attemptMs = 2_000;
        java.util.concurrent.atomic.AtomicBoolean slept = new java.util.concurrent.atomic.AtomicBoolean();
        UnaryOperator<IngestService.UnitDecoder> slow = d -> (data, pk, ref) -> {
            if (java.util.Arrays.equals(data, slowData) && slept.compareAndSet(false, true)) {
                try {
                    Thread.sleep(attemptMs / 2 + 100); // past half of the attempt, before its end
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return d.decodeUnits(data, pk, ref);
        };
        IngestHandler handler = handler(f.service(slow));
        long timeoutMs = SAFETY_MARGIN_MS + attemptMs;

        List<KinesisEvent.KinesisEventRecord> pending = batch;
        List<List<String>> responses = new ArrayList<>();
        while (!pending.isEmpty() && responses.size() < 10) {
            long started = System.nanoTime();
            StreamsEventResponse response =
                    handler.handleRequest(event(pending), new TestContext("d", timeoutMs, 1024));
            long tookMs = (System.nanoTime() - started) / 1_000_000;
            assertThat(tookMs)
                    .as("invocation %d ends before Lambda's timeout", responses.size() + 1)
                    .isLessThan(timeoutMs);
            responses.add(failures(response));
            pending = failures(response).isEmpty()
                    ? List.of()
                    : IngestFixture.from(pending, failures(response).get(0));
        }

        assertThat(slept).isTrue();
        assertThat(responses.get(0))
                .as("the first invocation did not store the whole batch")
                .isNotEmpty();
        assertThat(pending).isEmpty();
        assertThat(f.stored()).isEqualTo(expected(batch));
        assertThat(f.committed()).isEqualTo(batch.get(29).getKinesis().getSequenceNumber());
        assertThat(f.sqs.messages()).isEmpty();
        assertThat(metrics.documents()).hasSize(responses.size());
        assertThat(metrics.documents()).allSatisfy(d -> assertThat(d).containsEntry("RecordsSetAside", 0.0));
    }

    /** A batch that fails is reported from its first record, so Lambda retries (or bisects) the whole batch. */
    @Test
    void handleRequest_whenTheBatchFails_reportsItsFirstRecordAndCountsTheFailure() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 10, 2, 2);
        f.dynamo.rates(1.0, 0);

        StreamsEventResponse response =
                handler(f.service()).handleRequest(event(batch), new TestContext("t", SAFETY_MARGIN_MS + 2_500, 1024));

        assertThat(failures(response)).containsExactly(batch.get(0).getKinesis().getSequenceNumber());
        assertThat(metrics.last("BatchFailures")).isEqualTo(1);
        assertThat(metrics.last("Throttles")).isPositive();
        assertThat(metrics.last("RecordsIn")).isEqualTo(10);
    }

    @Test
    void handleRequest_whenEventHasNoRecords_succeedsAndPublishesOneDocument() {
        StreamsEventResponse response =
                handler(f.service()).handleRequest(new KinesisEvent(), new TestContext("e", 5_000, 1024));

        assertThat(failures(response)).isEmpty();
        assertThat(metrics.documents()).hasSize(1);
        assertThat(metrics.last("RecordsIn")).isZero();
    }

    @Test
    void handleRequest_whenRedriveRecordsAreMixedWithStreamRecords_refusesTheBatchNamingBoth() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 3, 1, 1);
        batch.get(1).setEventName(IngestHandler.REDRIVE_EVENT_NAME);

        assertThatThrownBy(() -> handler(f.service()).handleRequest(event(batch), new TestContext("m", 5_000, 1024)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a batch mixes 1 redrive records (eventName pulse:redrive) with 2 stream records");
        assertThat(f.partialItems()).isEmpty();
    }

    /**
     * A redrive stores a discarded batch below the committed position; it is refused (an error for the redrive tool,
     * nothing written) while live delivery has not passed the batch.
     */
    @Test
    void handleRequest_whenRedriveIsAheadOfTheCommittedPosition_throwsAndWritesNothing() {
        List<KinesisEvent.KinesisEventRecord> batch = records(0, 5, 1, 1);
        batch.forEach(r -> r.setEventName(IngestHandler.REDRIVE_EVENT_NAME));

        assertThatThrownBy(() -> handler(f.service()).handleRequest(event(batch), new TestContext("r", 5_000, 1024)))
                .isInstanceOf(IngestHandler.RedriveFailedException.class)
                .hasMessageContaining("redrive refused")
                .hasMessageContaining("has committed nothing");
        assertThat(f.partialItems()).isEmpty();
    }

    /**
     * The batch Lambda discarded (its attempt died before the commit, its retries ran out) is redriven once live
     * delivery has committed past it: the redrive's partials outvote what the dead attempt left, and every record
     * ends stored once.
     */
    @Test
    void handleRequest_whenADiscardedBatchIsRedrivenBelowTheCommittedPosition_storesItOnce() {
        List<KinesisEvent.KinesisEventRecord> all = records(0, 20, 2, 2);
        // The claim, four compaction marks and the partials get through; the commit does not.
        f.dynamo.crashAfter(6);
        assertThat(f.attempt(f.service(), all.subList(0, 10)).failed()).isTrue();
        assertThat(f.dynamo.crashed()).isTrue();
        f.dynamo.disarmCrash();
        f.deliver(f.service(), all.subList(10, 20), 10); // Lambda moved on past the discarded batch
        assertThat(f.committed()).isEqualTo(all.get(19).getKinesis().getSequenceNumber());
        List<KinesisEvent.KinesisEventRecord> redrive = records(0, 10, 2, 2);
        redrive.forEach(r -> r.setEventName(IngestHandler.REDRIVE_EVENT_NAME));

        StreamsEventResponse response =
                handler(f.service()).handleRequest(event(redrive), new TestContext("r", 10_000, 1024));

        assertThat(failures(response)).isEmpty();
        assertThat(metrics.last("DatapointsIn")).isEqualTo(10);
        assertThat(f.stored()).isEqualTo(expected(all));
    }
}
