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

import static dev.pulse.local.esm.EsmFakes.FUNCTION_ARN;
import static dev.pulse.local.esm.EsmFakes.KINESIS_ARN;
import static dev.pulse.local.esm.EsmFakes.SHARD_ID;
import static dev.pulse.local.esm.EsmFakes.T0;
import static dev.pulse.local.esm.EsmFakes.error;
import static dev.pulse.local.esm.EsmFakes.failures;
import static dev.pulse.local.esm.EsmFakes.kinesis;
import static dev.pulse.local.esm.EsmFakes.kinesisRecords;
import static dev.pulse.local.esm.EsmFakes.ok;
import static dev.pulse.local.esm.EsmFakes.parse;
import static dev.pulse.local.esm.EsmFakes.response;
import static dev.pulse.local.esm.EsmFakes.seqs;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.local.esm.EsmFakes.Call;
import dev.pulse.local.esm.EsmFakes.InMemoryShard;
import dev.pulse.local.esm.EsmFakes.RecordingDestination;
import dev.pulse.local.esm.EsmFakes.ScriptedInvoker;
import dev.pulse.local.esm.EsmFakes.Spec;
import dev.pulse.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class ShardProcessorTest {

    private final MutableClock clock = new MutableClock(T0.plusSeconds(30));
    private final RecordingDestination destination = new RecordingDestination();
    private final ShardStats stats = new ShardStats();

    private ShardProcessor processor(Spec spec, InMemoryShard shard, FunctionInvoker invoker) {
        return new ShardProcessor(
                spec.build(), shard, invoker, destination, clock, FUNCTION_ARN, stats, ShardProcessor.Timing.NONE);
    }

    private static ScriptedInvoker invoker(InMemoryShard shard, Function<Call, InvokeResult> script) {
        return new ScriptedInvoker(shard, script);
    }

    /** Steps until every record of the (closed) shard is done. */
    private static void drain(ShardProcessor processor) throws InterruptedException {
        for (int i = 0; i < 10_000 && !processor.finished(); i++) {
            processor.step();
        }
        assertThat(processor.finished()).as("processor finished").isTrue();
    }

    private static String iso(Instant instant) {
        return instant.toString();
    }

    // ---- partial batch response ----

    @Test
    void step_whenResponseReportsTwoFailures_checkpointsAtLowerAndRetriesFromIt() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 5)).close();
        ScriptedInvoker function = invoker(shard, c -> c.index() == 0 ? response(c, failures("1004", "1002")) : ok(c));

        drain(processor(Spec.kinesisDefaults().withReportBatchItemFailures(), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 5), seqs(1002, 4));
        assertThat(destination.sent).isEmpty();
        assertThat(stats.partialFailures()).isEqualTo(1);
        assertThat(stats.retries()).isEqualTo(1);
        assertThat(stats.recordsDone()).isEqualTo(5);
    }

    @Test
    void step_whenPartialFailureRepeatsUntilRetriesExhausted_sendsOnlyTheFailedRestToDestination() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 5)).close();
        ScriptedInvoker function = invoker(shard, c -> response(c, failures("1003")));

        drain(processor(Spec.kinesisDefaults().withReportBatchItemFailures().withRetries(1), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 5), seqs(1003, 3));
        assertThat(destination.sent).singleElement().satisfies(sent -> {
            assertThat(sent.at("/requestContext/condition").asText()).isEqualTo("RetryAttemptsExhausted");
            assertThat(sent.at("/requestContext/approximateInvokeCount").asInt())
                    .isEqualTo(2);
            assertThat(sent.at("/responseContext/functionError").isMissingNode())
                    .isTrue();
            assertThat(sent.at("/KinesisBatchInfo/startSequenceNumber").asText())
                    .isEqualTo("1003");
            assertThat(sent.at("/KinesisBatchInfo/endSequenceNumber").asText()).isEqualTo("1005");
            assertThat(sent.at("/KinesisBatchInfo/batchSize").asInt()).isEqualTo(3);
        });
        assertThat(stats.recordsDone()).isEqualTo(5);
    }

    static Stream<Arguments> wholeBatchFailures() {
        return Stream.of(
                Arguments.of("empty-string itemIdentifier", "{\"batchItemFailures\":[{\"itemIdentifier\":\"\"}]}"),
                Arguments.of("null itemIdentifier", "{\"batchItemFailures\":[{\"itemIdentifier\":null}]}"),
                Arguments.of("itemIdentifier under a wrong key", "{\"batchItemFailures\":[{\"itemId\":\"1002\"}]}"),
                Arguments.of("identifier not in the batch", failures("1002", "9999")),
                Arguments.of("response not JSON", "Task timed out"),
                Arguments.of("response not an object", "[\"1002\"]"),
                Arguments.of("batchItemFailures not a list", "{\"batchItemFailures\":\"1002\"}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("wholeBatchFailures")
    void step_whenResponseIsInvalid_failsAndRetriesWholeBatch(String why, String body) throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 3)).close();
        ScriptedInvoker function = invoker(shard, c -> c.index() == 0 ? response(c, body) : ok(c));

        drain(processor(Spec.kinesisDefaults().withReportBatchItemFailures().withBisect(), shard, function));

        // Not a function error, so no bisection either: the same whole batch again.
        assertThat(function.batches()).containsExactly(seqs(1001, 3), seqs(1001, 3));
        assertThat(stats.invalidResponses()).isEqualTo(1);
        assertThat(stats.partialFailures()).isZero();
        assertThat(stats.bisections()).isZero();
        assertThat(destination.sent).isEmpty();
    }

    static Stream<Arguments> successResponses() {
        return Stream.of(
                Arguments.of("null response", null),
                Arguments.of("empty response", ""),
                Arguments.of("JSON null", "null"),
                Arguments.of("empty object", "{}"),
                Arguments.of("empty batchItemFailures", "{\"batchItemFailures\":[]}"),
                Arguments.of("null batchItemFailures", "{\"batchItemFailures\":null}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("successResponses")
    void step_whenResponseHasNoFailures_completesBatch(String why, String body) throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 3)).close();
        ScriptedInvoker function = invoker(shard, c -> response(c, body));

        drain(processor(Spec.kinesisDefaults().withReportBatchItemFailures(), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 3));
        assertThat(stats.recordsDone()).isEqualTo(3);
        assertThat(stats.retries()).isZero();
    }

    @Test
    void step_whenReportBatchItemFailuresOff_ignoresReportedFailures() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 3)).close();
        ScriptedInvoker function = invoker(shard, c -> response(c, failures("1002")));

        drain(processor(Spec.kinesisDefaults(), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 3));
        assertThat(stats.partialFailures()).isZero();
    }

    // ---- bisection ----

    @Test
    void step_whenOneRecordOfEightKeepsFailing_bisectsDownToItAndSendsItAloneToDestination() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(101, 8)).close();
        ScriptedInvoker function = invoker(shard, c -> c.seqs().contains("106") ? error(c) : ok(c));

        drain(processor(Spec.kinesisDefaults().withBatchSize(8).withBisect().withRetries(2), shard, function));

        assertThat(function.batches())
                .containsExactly(
                        seqs(101, 8),
                        seqs(101, 4),
                        seqs(105, 4),
                        seqs(105, 2),
                        List.of("105"),
                        List.of("106"),
                        List.of("106"),
                        List.of("106"), // the two retries: splits did not use any
                        seqs(107, 2));
        assertThat(function.calls().stream()
                        .map(Call::seqs)
                        .filter(s -> !s.contains("106"))
                        .flatMap(List::stream))
                .containsExactly("101", "102", "103", "104", "105", "107", "108");
        assertThat(destination.sent).containsExactly(parse("""
                {
                  "requestContext": {"requestId": "req-7", "functionArn": "%s", "condition": "RetryAttemptsExhausted",
                                     "approximateInvokeCount": 6},
                  "responseContext": {"statusCode": 200, "executedVersion": "$LATEST", "functionError": "Unhandled"},
                  "version": "1.0",
                  "timestamp": "%s",
                  "KinesisBatchInfo": {"shardId": "%s", "startSequenceNumber": "106", "endSequenceNumber": "106",
                                       "approximateArrivalOfFirstRecord": "%s", "approximateArrivalOfLastRecord": "%s",
                                       "batchSize": 1, "streamArn": "%s"}
                }""".formatted(
                        FUNCTION_ARN,
                        iso(clock.instant()),
                        SHARD_ID,
                        iso(T0.plusSeconds(5)),
                        iso(T0.plusSeconds(5)),
                        KINESIS_ARN)));
        assertThat(stats.bisections()).isEqualTo(3);
        assertThat(stats.retries()).isEqualTo(2);
        assertThat(stats.functionErrors()).isEqualTo(6);
        assertThat(stats.invocations()).isEqualTo(9);
        assertThat(stats.recordsToDestination()).isEqualTo(1);
        assertThat(stats.recordsDone()).isEqualTo(8);
    }

    // ---- retries and age ----

    @ParameterizedTest(name = "MaximumRetryAttempts {0}")
    @ValueSource(ints = {0, 2, 5})
    void step_whenSingleRecordAlwaysFails_invokesOncePlusRetriesThenDestinationAndMovesOn(int retries)
            throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 2)).close();
        ScriptedInvoker function = invoker(shard, c -> c.seqs().contains("1001") ? error(c) : ok(c));

        drain(processor(Spec.kinesisDefaults().withBatchSize(1).withRetries(retries), shard, function));

        List<List<String>> expected = new ArrayList<>();
        for (int i = 0; i < 1 + retries; i++) {
            expected.add(List.of("1001"));
        }
        expected.add(List.of("1002"));
        assertThat(function.batches()).isEqualTo(expected);
        assertThat(destination.sent).singleElement().satisfies(sent -> {
            assertThat(sent.at("/requestContext/requestId").asText()).isEqualTo("req-" + retries);
            assertThat(sent.at("/requestContext/condition").asText()).isEqualTo("RetryAttemptsExhausted");
            assertThat(sent.at("/requestContext/approximateInvokeCount").asInt())
                    .isEqualTo(1 + retries);
            assertThat(sent.at("/responseContext/functionError").asText()).isEqualTo("Unhandled");
            assertThat(sent.get("KinesisBatchInfo"))
                    .isEqualTo(parse("""
                    {"shardId": "%s", "startSequenceNumber": "1001", "endSequenceNumber": "1001",
                     "approximateArrivalOfFirstRecord": "%s", "approximateArrivalOfLastRecord": "%s",
                     "batchSize": 1, "streamArn": "%s"}""".formatted(SHARD_ID, iso(T0), iso(T0), KINESIS_ARN)));
        });
        assertThat(stats.retries()).isEqualTo(retries);
    }

    @Test
    void step_whenFailingRecordPassesMaxAge_sendsItToDestinationInsteadOfRetryingForever() throws Exception {
        clock.advance(Duration.ofSeconds(-20)); // T0 + 10 s
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 1)).close();
        ScriptedInvoker function = invoker(shard, c -> {
            clock.advance(Duration.ofSeconds(30)); // each attempt takes 30 s
            return error(c);
        });

        drain(processor(Spec.kinesisDefaults().withMaxAge(Duration.ofSeconds(60)), shard, function));

        // Attempt 1 at age 10 s, attempt 2 at age 40 s; at age 70 s the retry is not made.
        assertThat(function.batches()).containsExactly(List.of("1001"), List.of("1001"));
        assertThat(destination.sent).singleElement().satisfies(sent -> {
            assertThat(sent.at("/requestContext/condition").asText()).isEqualTo("RecordAgeExceeded");
            assertThat(sent.at("/requestContext/approximateInvokeCount").asInt())
                    .isEqualTo(2);
            assertThat(sent.at("/responseContext/functionError").asText()).isEqualTo("Unhandled");
            assertThat(sent.at("/KinesisBatchInfo/startSequenceNumber").asText())
                    .isEqualTo("1001");
            assertThat(sent.at("/timestamp").asText()).isEqualTo(iso(T0.plusSeconds(70)));
        });
        assertThat(stats.retries()).isEqualTo(1);
    }

    @Test
    void step_whenRecordsAlreadyPastMaxAgeWhenRead_sendsThemToDestinationWithoutInvoking() throws Exception {
        InMemoryShard shard = new InMemoryShard(
                        KINESIS_ARN,
                        List.of(
                                kinesis("1001", T0.minusSeconds(200), "{}"),
                                kinesis("1002", T0.minusSeconds(100), "{}"),
                                kinesis("1003", T0, "{}")))
                .close();
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);

        drain(processor(Spec.kinesisDefaults().withMaxAge(Duration.ofSeconds(60)), shard, function));

        assertThat(function.batches()).containsExactly(List.of("1003"));
        assertThat(destination.sent).singleElement().satisfies(sent -> {
            assertThat(sent.at("/requestContext/condition").asText()).isEqualTo("RecordAgeExceeded");
            assertThat(sent.at("/requestContext/approximateInvokeCount").asInt())
                    .isZero();
            assertThat(sent.has("responseContext")).isFalse();
            assertThat(sent.at("/KinesisBatchInfo/startSequenceNumber").asText())
                    .isEqualTo("1001");
            assertThat(sent.at("/KinesisBatchInfo/endSequenceNumber").asText()).isEqualTo("1002");
            assertThat(sent.at("/KinesisBatchInfo/batchSize").asInt()).isEqualTo(2);
        });
        assertThat(stats.recordsDone()).isEqualTo(3);
    }

    @Test
    void step_whenNoDestination_discardsAndMovesOn() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 2)).close();
        ScriptedInvoker function = invoker(shard, c -> c.seqs().contains("1001") ? error(c) : ok(c));
        ShardProcessor processor = new ShardProcessor(
                Spec.kinesisDefaults().withBatchSize(1).withRetries(0).build(),
                shard,
                function,
                null,
                clock,
                FUNCTION_ARN,
                stats,
                ShardProcessor.Timing.NONE);

        drain(processor);

        assertThat(function.batches()).containsExactly(List.of("1001"), List.of("1002"));
        assertThat(stats.recordsDiscarded()).isEqualTo(1);
        assertThat(stats.batchesToDestination()).isZero();
        assertThat(stats.recordsDone()).isEqualTo(2);
    }

    @Test
    void step_whenDestinationRefuses_stillMovesOn() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 2)).close();
        ScriptedInvoker function = invoker(shard, c -> c.seqs().contains("1001") ? error(c) : ok(c));
        FailureDestination refusing = json -> {
            throw new IllegalStateException("queue does not exist");
        };
        ShardProcessor processor = new ShardProcessor(
                Spec.kinesisDefaults().withBatchSize(1).withRetries(0).build(),
                shard,
                function,
                refusing,
                clock,
                FUNCTION_ARN,
                stats,
                ShardProcessor.Timing.NONE);

        drain(processor);

        assertThat(function.batches()).containsExactly(List.of("1001"), List.of("1002"));
        assertThat(stats.recordsDiscarded()).isEqualTo(1);
        assertThat(stats.batchesToDestination()).isZero();
    }

    @Test
    void step_whenInvokerThrows_triesAgainWithoutUsingARetry() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 1)).close();
        ScriptedInvoker function = invoker(shard, c -> {
            if (c.index() == 0) {
                throw new IllegalStateException("throttled");
            }
            return ok(c);
        });

        drain(processor(Spec.kinesisDefaults().withRetries(0), shard, function));

        assertThat(function.batches()).containsExactly(List.of("1001"), List.of("1001"));
        assertThat(stats.invocations()).isEqualTo(1);
        assertThat(destination.sent).isEmpty();
    }

    // ---- order ----

    @Test
    void step_whenFirstBatchFailsOnce_deliversBatchesInSequenceOrderAndReadsNothingAhead() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 10)).close();
        ScriptedInvoker function = invoker(shard, c -> c.index() == 0 ? error(c) : ok(c));

        drain(processor(Spec.kinesisDefaults().withBatchSize(3), shard, function));

        assertThat(function.batches())
                .containsExactly(seqs(1001, 3), seqs(1001, 3), seqs(1004, 3), seqs(1007, 3), List.of("1010"));
        // While the first batch was in flight, no record after it had even been read.
        assertThat(function.calls()).extracting(Call::shardPosition).containsExactly(3, 3, 6, 9, 10);
    }

    // ---- batching ----

    @Test
    void step_whenMoreRecordsThanBatchSize_invokesWithAtMostBatchSize() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 7)).close();
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);

        drain(processor(Spec.kinesisDefaults().withBatchSize(3), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 3), seqs(1004, 3), List.of("1007"));
        assertThat(shard.readSizes()).startsWith(3, 3, 3);
    }

    @Test
    void step_whenNoBatchingWindow_invokesWithWhatOneReadReturned() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 2));
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);
        ShardProcessor processor = processor(Spec.kinesisDefaults().withBatchSize(10), shard, function);

        processor.step();
        shard.append(kinesisRecords(1003, 1));
        processor.step();

        assertThat(function.batches()).containsExactly(seqs(1001, 2), List.of("1003"));
    }

    @Test
    void step_whenBatchingWindowOpen_waitsForWindowBeforeInvoking() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, List.of());
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);
        ShardProcessor processor =
                processor(Spec.kinesisDefaults().withBatchSize(10).withWindow(Duration.ofSeconds(10)), shard, function);

        assertThat(processor.step()).isFalse(); // nothing to read: the window has not started
        shard.append(kinesisRecords(1001, 1));
        assertThat(processor.step()).isTrue();
        clock.advance(Duration.ofSeconds(5));
        shard.append(kinesisRecords(1002, 1));
        processor.step();
        clock.advance(Duration.ofMillis(4_999));
        assertThat(processor.step()).isFalse();
        assertThat(function.batches()).isEmpty();

        clock.advance(Duration.ofMillis(1));
        processor.step();

        assertThat(function.batches()).containsExactly(seqs(1001, 2));
    }

    @Test
    void step_whenBatchFillsInsideWindow_invokesAtOnce() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 3));
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);
        ShardProcessor processor =
                processor(Spec.kinesisDefaults().withBatchSize(3).withWindow(Duration.ofSeconds(60)), shard, function);

        processor.step();

        assertThat(function.batches()).containsExactly(seqs(1001, 3));
    }

    @Test
    void step_whenShardClosesInsideWindow_flushesAtOnce() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 2)).close();
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);
        ShardProcessor processor =
                processor(Spec.kinesisDefaults().withBatchSize(10).withWindow(Duration.ofSeconds(60)), shard, function);

        processor.step();

        assertThat(function.batches()).containsExactly(seqs(1001, 2));
        assertThat(processor.finished()).isTrue();
    }

    @Test
    void step_whenRecordsWouldPassPayloadLimit_cutsTheBatchBeforeIt() throws Exception {
        int mb = 1024 * 1024;
        List<StreamRecord> records = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            records.add(kinesis(String.valueOf(1001 + i), T0, "{}", 5 * mb / 2)); // 2.5 MB each
        }
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, records).close();
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);

        drain(processor(Spec.kinesisDefaults().withBatchSize(10), shard, function));

        assertThat(function.batches()).containsExactly(seqs(1001, 2), seqs(1003, 2), List.of("1005"));
    }

    // ---- the rest ----

    @Test
    void parallelizationReduced_whenFactorAboveOne_isTrue() {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, List.of());
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);

        assertThat(processor(Spec.kinesisDefaults().withParallelization(4), shard, function)
                        .parallelizationReduced())
                .isTrue();
        assertThat(processor(Spec.kinesisDefaults(), shard, function).parallelizationReduced())
                .isFalse();
    }

    @Test
    void runUntil_whenShardClosed_deliversEverythingAndReturns() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 5)).close();
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);

        processor(Spec.kinesisDefaults().withBatchSize(2), shard, function).runUntil(() -> false);

        assertThat(function.batches()).containsExactly(seqs(1001, 2), seqs(1003, 2), List.of("1005"));
        assertThat(stats.recordsDone()).isEqualTo(5);
        assertThat(stats.newestArrivalDone()).isEqualTo(T0.plusSeconds(4));
    }

    @Test
    void runUntil_whenStopped_returns() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, List.of()); // never closes
        ScriptedInvoker function = invoker(shard, EsmFakes::ok);
        int[] polls = {0};

        processor(Spec.kinesisDefaults(), shard, function).runUntil(() -> ++polls[0] > 3);

        assertThat(shard.readSizes()).hasSize(3);
    }

    @Test
    void failureContext_whenKinesis_isCompactJsonWithTheDocumentedFields() throws Exception {
        InMemoryShard shard = new InMemoryShard(KINESIS_ARN, kinesisRecords(1001, 1)).close();
        ScriptedInvoker function = invoker(shard, EsmFakes::error);

        drain(processor(Spec.kinesisDefaults().withRetries(0), shard, function));

        JsonNode sent = destination.sent.getFirst();
        assertThat(sent.fieldNames())
                .toIterable()
                .containsExactly("requestContext", "responseContext", "version", "timestamp", "KinesisBatchInfo");
        assertThat(sent.get("version").asText()).isEqualTo("1.0");
        assertThat(sent.get("timestamp").asText()).isEqualTo("2025-06-05T18:22:19.250Z");
    }
}
