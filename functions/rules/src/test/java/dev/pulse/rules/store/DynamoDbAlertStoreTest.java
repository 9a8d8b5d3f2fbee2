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
package dev.pulse.rules.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.Alert;
import dev.pulse.rules.AlertState;
import dev.pulse.rules.AlertStore;
import dev.pulse.rules.GroupEvaluation;
import dev.pulse.rules.GroupEvaluator;
import dev.pulse.rules.Querier;
import dev.pulse.rules.RuleFiles;
import dev.pulse.rules.RuleGroup;
import dev.pulse.testing.DelegatingDynamoDb;
import dev.pulse.testing.DynamoDbLocalExtension;
import dev.pulse.testing.emulator.LocalDynamoDb;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;

/**
 * The alert state in a real table (DynamoDB Local on 127.0.0.1): what a rule's item holds, that only one of two
 * evaluations of the same time wins (and only the winner reports transitions to notify), that an older evaluation
 * is refused, and that throttling and a lost response are retried without losing or doubling a transition.
 */
class DynamoDbAlertStoreTest {

    @RegisterExtension
    static final DynamoDbLocalExtension DYNAMO = new DynamoDbLocalExtension();

    private static final String TABLE = "alerts";
    private static final Backoff BACKOFF = new Backoff(5, 50);
    private static final long MINUTE = 60_000;
    private static final AtomicInteger RULES = new AtomicInteger();
    private static ExecutorService pool;

    @BeforeAll
    static void table() {
        LocalDynamoDb.createTable(DYNAMO.reader(), TABLE);
        pool = Executors.newFixedThreadPool(4);
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    private static DynamoDbAlertStore store(DynamoDbAsyncClient client) {
        return new DynamoDbAlertStore(client, TABLE, BACKOFF, () -> Deadline.inMillis(5_000));
    }

    private static String newRule() {
        return "t.yml;g;0;A" + RULES.incrementAndGet();
    }

    private static Alert alert(AlertState state, double value, long activeAt, long firedAt, long resolvedAt, String i) {
        SortedMap<String, String> labels = new TreeMap<>(Map.of("alertname", "A", "instance", i));
        SortedMap<String, String> annotations = new TreeMap<>(Map.of("summary", "value " + value, "empty", ""));
        return new Alert(
                Collections.unmodifiableSortedMap(labels),
                Collections.unmodifiableSortedMap(annotations),
                state,
                value,
                activeAt,
                firedAt,
                resolvedAt,
                0);
    }

    private static Map<String, Alert> byFingerprint(Alert... alerts) {
        Map<String, Alert> m = new HashMap<>();
        for (Alert a : alerts) {
            m.put(a.fingerprint(), a);
        }
        return m;
    }

    @Test
    void load_whenTheRuleWasNeverEvaluated_returnsNoAlertsAtVersionZero() {
        AlertStore.Snapshot s = store(DYNAMO.async()).load(newRule());

        assertThat(s.alerts()).isEmpty();
        assertThat(s.version()).isZero();
        assertThat(s.evaluatedAt()).isZero();
    }

    @Test
    void replace_thenLoad_returnsEveryFieldOfEveryAlertAndTheNextVersion() {
        DynamoDbAlertStore store = store(DYNAMO.async());
        String rule = newRule();
        Map<String, Alert> alerts = byFingerprint(
                alert(AlertState.FIRING, 0.1 + 0.2, MINUTE, 3 * MINUTE, 0, "a"),
                alert(AlertState.PENDING, Double.NaN, 2 * MINUTE, 0, 0, "b"),
                new Alert(
                        new TreeMap<>(Map.of("alertname", "A", "instance", "c")),
                        new TreeMap<>(),
                        AlertState.INACTIVE,
                        Double.NEGATIVE_INFINITY,
                        MINUTE,
                        2 * MINUTE,
                        4 * MINUTE,
                        3 * MINUTE));

        assertThat(store.replace(rule, 0, 4 * MINUTE, alerts)).isTrue();
        AlertStore.Snapshot s = store.load(rule);

        assertThat(s.version()).isEqualTo(1);
        assertThat(s.evaluatedAt()).isEqualTo(4 * MINUTE);
        assertThat(s.alerts()).isEqualTo(alerts);
        Map<String, AttributeValue> item = DYNAMO.reader()
                .getItem(b -> b.tableName(TABLE).key(DynamoDbAlertStore.ruleKey(rule)))
                .item();
        assertThat(item.get("pk").s()).isEqualTo("A#" + rule);
        assertThat(item.get("sk").s()).isEqualTo("rule");
    }

    @Test
    void replace_whenTheStoredVersionMovedOn_refusesAndKeepsTheStoredAlerts() {
        DynamoDbAlertStore store = store(DYNAMO.async());
        String rule = newRule();
        Map<String, Alert> first = byFingerprint(alert(AlertState.PENDING, 1, MINUTE, 0, 0, "a"));
        store.replace(rule, 0, MINUTE, first);

        assertThat(store.replace(rule, 0, 2 * MINUTE, Map.of())).isFalse();
        assertThat(store.load(rule).alerts()).isEqualTo(first);
    }

    @Test
    void replace_whenTheEvaluationIsNotNewerThanTheStoredOne_refusesIt() {
        DynamoDbAlertStore store = store(DYNAMO.async());
        String rule = newRule();
        store.replace(rule, 0, 5 * MINUTE, Map.of());

        assertThat(store.replace(rule, 1, 4 * MINUTE, byFingerprint(alert(AlertState.PENDING, 1, MINUTE, 0, 0, "a"))))
                .isFalse();
        assertThat(store.replace(rule, 1, 5 * MINUTE, Map.of())).isFalse();
        assertThat(store.load(rule).version()).isEqualTo(1);
        assertThat(store.replace(rule, 1, 6 * MINUTE, Map.of())).isTrue();
    }

    @Test
    void replace_whenTwoEvaluatorsWriteTheSameVersionAtOnce_exactlyOneWinsEveryRound() throws Exception {
        DynamoDbAlertStore store = store(DYNAMO.async());
        String rule = newRule();
        long version = 0;
        for (int round = 1; round <= 20; round++) {
            long at = round * MINUTE;
            long v = version;
            CyclicBarrier together = new CyclicBarrier(2);
            List<Future<Boolean>> racers = new ArrayList<>();
            for (String who : List.of("x", "y")) {
                racers.add(pool.submit(() -> {
                    together.await(5, TimeUnit.SECONDS);
                    return store.replace(rule, v, at, byFingerprint(alert(AlertState.PENDING, 1, at, 0, 0, who)));
                }));
            }
            int won = 0;
            for (Future<Boolean> f : racers) {
                won += f.get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(won).as("round %d", round).isEqualTo(1);
            version++;
            assertThat(store.load(rule).version()).isEqualTo(version);
        }
    }

    @Test
    void replace_whenTheResponseOfTheLandedWriteIsLost_retriesAndReportsTheWin() {
        LosingResponses client = new LosingResponses(DYNAMO.async(), 1);
        DynamoDbAlertStore store = store(client);
        String rule = newRule();
        Map<String, Alert> alerts = byFingerprint(alert(AlertState.FIRING, 1, MINUTE, MINUTE, 0, "a"));

        assertThat(store.replace(rule, 0, MINUTE, alerts)).isTrue();

        assertThat(client.puts.get()).isEqualTo(2);
        assertThat(store.load(rule).version()).isEqualTo(1);
        assertThat(store.load(rule).alerts()).isEqualTo(alerts);
    }

    @Test
    void replace_whenThrottled_retriesWithBackoffUntilItLands() {
        Throttling client = new Throttling(DYNAMO.async(), 3);
        DynamoDbAlertStore store = store(client);
        String rule = newRule();

        assertThat(store.replace(rule, 0, MINUTE, Map.of())).isTrue();

        assertThat(client.throttled.get()).isEqualTo(3);
        assertThat(store.load(rule).version()).isEqualTo(1);
    }

    @Test
    void replace_whenThrottledPastTheDeadline_throwsNamingTheRuleAndLeavesTheStateAsItWas() {
        Throttling client = new Throttling(DYNAMO.async(), Integer.MAX_VALUE);
        DynamoDbAlertStore store = new DynamoDbAlertStore(client, TABLE, BACKOFF, () -> Deadline.inMillis(200));
        String rule = newRule();

        assertThatThrownBy(() -> store.replace(rule, 0, MINUTE, Map.of()))
                .isInstanceOf(AlertStore.AlertStoreException.class)
                .hasMessageContaining("could not write the alert state of rule " + rule)
                .hasMessageContaining("throttled");
        assertThat(store(DYNAMO.async()).load(rule).version()).isZero();
    }

    @Test
    void replace_whenTheStateIsLargerThanAnItem_throwsStateTooLargeNamingTheSizeAndTheGroupLimit() {
        DynamoDbAlertStore store = store(DYNAMO.async());
        Map<String, Alert> many = new HashMap<>();
        for (int i = 0; i < 2_000; i++) {
            Alert a =
                    alert(AlertState.FIRING, i, MINUTE, MINUTE, 0, "instance-with-a-long-name-" + "x".repeat(150) + i);
            many.put(a.fingerprint(), a);
        }

        String rule = newRule();

        // Not a store failure: the same time would fail the same way, so the evaluator fails the rule, not the group.
        assertThatThrownBy(() -> store.replace(rule, 0, MINUTE, many))
                .isInstanceOf(AlertStore.StateTooLargeException.class)
                .hasMessageContaining("2000 alerts")
                .hasMessageContaining("set the group's limit");
        assertThat(store.load(rule).version()).isZero();
    }

    @Test
    void groupEvaluated_whenAnOlderTimeArrivesLate_keepsTheNewerOne() {
        DynamoDbAlertStore store = store(DYNAMO.async());
        String group = "t.yml;g" + RULES.incrementAndGet();

        assertThat(store.groupEvaluatedAt(group)).isZero();
        store.groupEvaluated(group, 3 * MINUTE);
        store.groupEvaluated(group, 2 * MINUTE);
        store.groupEvaluated(group, 3 * MINUTE);

        assertThat(store.groupEvaluatedAt(group)).isEqualTo(3 * MINUTE);
    }

    @Test
    void evaluate_whenTwoEvaluatorsEvaluateTheSameTimeConcurrently_onlyOneReportsTheTransitionToNotify()
            throws Exception {
        RuleGroup g = RuleFiles.parse(
                        "race.yml",
                        "groups:\n- name: g" + RULES.incrementAndGet() + "\n  rules:\n  - {alert: Up, expr: x > 0}\n")
                .get(0);
        // Both evaluators have read the (empty) state before either writes: the querier waits for both.
        CountDownLatch bothRead = new CountDownLatch(2);
        Querier querier = (expr, t, interval) -> {
            bothRead.countDown();
            try {
                bothRead.await(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return List.of(new RuleEvaluation.Sample(new TreeMap<>(Map.of("__name__", "x", "i", "a")), 1));
        };
        List<Future<GroupEvaluation>> runs = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            GroupEvaluator e = new GroupEvaluator(querier, store(DYNAMO.async()), (k, at, s) -> {}, Map.of(), "");
            runs.add(pool.submit(() -> e.evaluate(g, 10 * MINUTE)));
        }
        List<GroupEvaluation.Outcome> outcomes = new ArrayList<>();
        for (Future<GroupEvaluation> f : runs) {
            outcomes.add(f.get(10, TimeUnit.SECONDS).rules().get(0));
        }

        assertThat(outcomes)
                .filteredOn(o -> !o.superseded())
                .singleElement()
                .satisfies(o ->
                        assertThat(o.transitions()).extracting(Alert::state).containsExactly(AlertState.FIRING));
        assertThat(outcomes)
                .filteredOn(GroupEvaluation.Outcome::superseded)
                .singleElement()
                .satisfies(o -> assertThat(o.transitions()).isEmpty());
        // A retry of the same time after the winner wrote is refused before it queries anything.
        GroupEvaluation retry = new GroupEvaluator(
                        (expr, t, interval) -> {
                            throw new AssertionError("a time already evaluated must not be evaluated again");
                        },
                        store(DYNAMO.async()),
                        (k, at, s) -> {},
                        Map.of(),
                        "")
                .evaluate(g, 10 * MINUTE);
        assertThat(retry.rules().get(0).superseded()).isTrue();
        assertThat(retry.rules().get(0).transitions()).isEmpty();
    }

    /** Lets the first {@code lose} PutItem calls land, then answers them with a connection error. */
    private static final class LosingResponses extends DelegatingDynamoDb {
        private final AtomicInteger toLose;
        final AtomicInteger puts = new AtomicInteger();

        LosingResponses(DynamoDbAsyncClient delegate, int lose) {
            super(delegate);
            this.toLose = new AtomicInteger(lose);
        }

        @Override
        public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
            puts.incrementAndGet();
            CompletableFuture<PutItemResponse> landed = delegate.putItem(request);
            if (toLose.getAndDecrement() <= 0) {
                return landed;
            }
            return landed.thenCompose(r -> CompletableFuture.failedFuture(SdkClientException.builder()
                    .message("connection reset before the response")
                    .build()));
        }
    }

    /** Throttles the first {@code n} PutItem calls as DynamoDB does, before they reach the table. */
    private static final class Throttling extends DelegatingDynamoDb {
        private final AtomicInteger left;
        final AtomicInteger throttled = new AtomicInteger();

        Throttling(DynamoDbAsyncClient delegate, int n) {
            super(delegate);
            this.left = new AtomicInteger(n);
        }

        @Override
        public CompletableFuture<PutItemResponse> putItem(PutItemRequest request) {
            if (left.getAndDecrement() <= 0) {
                return delegate.putItem(request);
            }
            throttled.incrementAndGet();
            return CompletableFuture.failedFuture(DynamoDbException.builder()
                    .statusCode(400)
                    .awsErrorDetails(AwsErrorDetails.builder()
                            .errorCode("ProvisionedThroughputExceededException")
                            .errorMessage("throttled")
                            .build())
                    .message("throttled")
                    .build());
        }
    }
}
