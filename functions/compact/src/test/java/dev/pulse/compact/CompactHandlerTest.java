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
package dev.pulse.compact;

import static dev.pulse.compact.CompactFixture.HOUR;
import static dev.pulse.compact.CompactFixture.at;
import static dev.pulse.compact.CompactFixture.buckets;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import com.amazonaws.services.lambda.runtime.tests.annotations.Event;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.RollupItems;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;

/**
 * {@link CompactHandler} as its EventBridge schedule invokes it (the bundled {@code events/compact-scheduled.json}):
 * a run that reaches its deadline stops starting work, returns, and leaves the rest queued; a run that fails on
 * DynamoDB throws after reporting, so the function's error alarm sees it; both publish one EMF document.
 */
class CompactHandlerTest {

    private static final long SAFETY_MARGIN_MS = 3_000; // the template's default

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private CompactFixture f;
    private final RecordingMetrics metrics = new RecordingMetrics();

    @BeforeEach
    void newTable() {
        f = new CompactFixture(DYNAMO.async(), DYNAMO.reader());
        f.clock.set(at("2026-11-21T10:31:00Z"));
        f.ingest(HOUR + 5 * 60_000L, 1, 1, 4, 6);
        f.clock.set(at("2026-11-21T11:06:00Z"));
    }

    private CompactHandler handler(DynamoDbAsyncClient client) {
        return CompactFunction.handler(f.service(client), metrics, SAFETY_MARGIN_MS);
    }

    @ParameterizedTest
    @Event(value = "events/compact-scheduled.json", type = ScheduledEvent.class)
    void handleRequest_whenScheduled_buildsWhatIsDueAndPublishesTheCounts(ScheduledEvent event) {
        CompactResult r = handler(DYNAMO.async()).handleRequest(event, new TestContext("c", 60_000, 1024));

        assertThat(r.stopped()).isFalse();
        assertThat(r.hoursBuilt()).isEqualTo(1);
        assertThat(buckets(f.hourly(HOUR), RollupItems.MINUTES)).isEqualTo(Map.of(5, List.of(2.0, 10.0, 4.0, 6.0)));
        assertThat(metrics.documents()).hasSize(1);
        assertThat(metrics.last("HoursBuilt")).isEqualTo(1);
        assertThat(metrics.last("PeriodsQueued")).isEqualTo(1);
        assertThat(metrics.last("RollupsWritten")).isEqualTo(1);
        assertThat(metrics.last("RunsStopped")).isZero();
        assertThat(metrics.last("ItemsRead")).isEqualTo(1);
    }

    /**
     * The reads take the run past its deadline: no write is started after it (it could land after the run returned),
     * the run returns normally with the hour left pending, and the next run builds it.
     */
    @ParameterizedTest
    @Event(value = "events/compact-scheduled.json", type = ScheduledEvent.class)
    void handleRequest_whenTheDeadlinePassesDuringTheReads_stopsWithoutWritingAndTheNextRunBuilds(
            ScheduledEvent event) {
        long attemptMs = 3_000; // the queue scan (three days, about 300 queries) fits well inside it
        DynamoDbAsyncClient slowReads = new DelegatingDynamoDb(DYNAMO.async()) {
            @Override
            public CompletableFuture<QueryResponse> query(QueryRequest request) {
                if (request.indexName() != null) {
                    return super.query(request); // the compaction queue
                }
                // The partials of the hour answer only after the run's deadline.
                return CompletableFuture.runAsync(
                                () -> {},
                                CompletableFuture.delayedExecutor(
                                        attemptMs + 200, java.util.concurrent.TimeUnit.MILLISECONDS))
                        .thenCompose(v -> super.query(request.toBuilder()
                                .overrideConfiguration(o -> o.apiCallTimeout(java.time.Duration.ofSeconds(5)))
                                .build()));
            }
        };

        long started = System.nanoTime();
        CompactResult r =
                handler(slowReads).handleRequest(event, new TestContext("c", SAFETY_MARGIN_MS + attemptMs, 1024));
        long tookMs = (System.nanoTime() - started) / 1_000_000;

        assertThat(r.stopped()).isTrue();
        assertThat(r.stopReason()).startsWith("deadline");
        assertThat(r.hoursBuilt()).isZero();
        assertThat(r.periodsPending()).isEqualTo(1);
        assertThat(tookMs).as("returns within the invocation's time").isLessThan(SAFETY_MARGIN_MS + attemptMs);
        assertThat(metrics.last("RunsStopped")).isEqualTo(1);
        assertThat(RollupItems.complete(f.hourly(HOUR))).isFalse();

        CompactResult next = handler(DYNAMO.async()).handleRequest(event, new TestContext("c2", 60_000, 1024));

        assertThat(next.hoursBuilt()).isEqualTo(1);
        assertThat(RollupItems.complete(f.hourly(HOUR))).isTrue();
    }

    @ParameterizedTest
    @Event(value = "events/compact-scheduled.json", type = ScheduledEvent.class)
    void handleRequest_whenDynamoDbFails_throwsAfterPublishingSoTheErrorAlarmSeesIt(ScheduledEvent event) {
        DynamoDbAsyncClient failing = new DelegatingDynamoDb(DYNAMO.async()) {
            @Override
            public CompletableFuture<QueryResponse> query(QueryRequest request) {
                return CompletableFuture.failedFuture(DynamoDbException.builder()
                        .statusCode(500)
                        .awsErrorDetails(AwsErrorDetails.builder()
                                .errorCode("InternalServerError")
                                .build())
                        .message("injected outage")
                        .build());
            }
        };

        assertThatThrownBy(() -> handler(failing).handleRequest(event, new TestContext("c", 60_000, 1024)))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("compaction run failed: ")
                .hasMessageContaining("injected outage");
        assertThat(metrics.documents()).hasSize(1);
        assertThat(metrics.last("RunsStopped")).isEqualTo(1);
        assertThat(RollupItems.complete(f.hourly(HOUR)))
                .as("still queued for the next run")
                .isFalse();
    }

    /** A run whose deadline has already passed when it starts its builds starts none and loses nothing. */
    @Test
    void build_whenTheDeadlinePassedBeforeTheBuilds_startsNoneAndLeavesThemPending() {
        DynamoDbAsyncClient slowQueue = new DelegatingDynamoDb(DYNAMO.async()) {
            @Override
            public CompletableFuture<QueryResponse> query(QueryRequest request) {
                CompletableFuture<QueryResponse> answer = super.query(request);
                // The queue scan answers just after the deadline (a cold start, say): nothing may be started after it.
                return answer.thenCompose(a -> CompletableFuture.supplyAsync(
                        () -> a, CompletableFuture.delayedExecutor(1_700, java.util.concurrent.TimeUnit.MILLISECONDS)));
            }
        };
        InvocationMetrics<CompactMetric> counters = new InvocationMetrics<>(CompactMetric.class);

        CompactResult r = f.service(slowQueue).build(Deadline.inMillis(1_500), counters);

        assertThat(r.stopped()).isTrue();
        assertThat(r.stopReason()).startsWith("deadline");
        assertThat(r.hoursBuilt()).isZero();
        assertThat(RollupItems.complete(f.hourly(HOUR))).isFalse();
        assertThat(f.run(at("2026-11-21T11:07:00Z")).hoursBuilt()).isEqualTo(1);
    }
}
