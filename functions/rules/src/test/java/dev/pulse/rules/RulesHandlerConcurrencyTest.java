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
package dev.pulse.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.MutableClock;
import dev.pulse.testing.RecordingMetrics;
import dev.pulse.testing.TestContext;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.joda.time.DateTime;
import org.junit.jupiter.api.Test;

/**
 * The groups of one invocation evaluated at once: each transition notified as soon as its rule's state write won, and
 * still exactly once when invocations of the same times race each other over the same store.
 */
class RulesHandlerConcurrencyTest {

    private static final Instant NOON = Instant.parse("2026-11-20T12:00:00Z");

    private final List<String> notified = Collections.synchronizedList(new ArrayList<>());
    private final Notifier notifier = (rule, at, transitions) -> {
        transitions.forEach(
                a -> notified.add(rule.name() + " " + a.state().wireName() + " @" + Instant.ofEpochMilli(at)));
        return 1;
    };

    private static List<RuleEvaluation.Sample> one(double v) {
        return List.of(new RuleEvaluation.Sample(new TreeMap<>(Map.of("__name__", "x", "i", "a")), v));
    }

    private static RuleSet groups(int groups, int alertsPerGroup) throws RuleFileException {
        StringBuilder yaml = new StringBuilder("groups:\n");
        for (int g = 0; g < groups; g++) {
            yaml.append("- name: g").append(g).append("\n  rules:\n");
            for (int r = 0; r < alertsPerGroup; r++) {
                yaml.append("  - {alert: A").append(g).append('_').append(r).append(", expr: 'x > 0'}\n");
            }
        }
        return RuleFiles.load(Map.of("r.yml", yaml.toString()));
    }

    private RulesHandler handler(RuleSet rules, Querier querier, AlertStore store, int groupConcurrency) {
        return new RulesHandler(
                rules,
                new GroupEvaluator(querier, store, (key, at, samples) -> {}, Map.of(), ""),
                store,
                notifier,
                new RecordingMetrics(),
                10,
                0,
                new AtomicReference<>(Deadline.inMillis(60_000)),
                new MutableClock(Instant.EPOCH),
                null,
                groupConcurrency);
    }

    private static Map<String, Object> invoke(RulesHandler h, Instant t) {
        ScheduledEvent event = new ScheduledEvent();
        event.setTime(new DateTime(t.toEpochMilli()));
        return h.handleRequest(event, new TestContext("req", 60_000, 512));
    }

    @Test
    void handleRequest_whenEveryGroupWaitsOnItsQuery_evaluatesTheGroupsAtOnce() throws Exception {
        int groups = 4;
        CountDownLatch allStarted = new CountDownLatch(groups);
        Set<String> threads = ConcurrentHashMap.newKeySet();
        Querier querier = (expr, t, interval) -> {
            threads.add(Thread.currentThread().getName());
            allStarted.countDown();
            try {
                // One after another, the first group would wait here for the others, which never start.
                if (!allStarted.await(10, TimeUnit.SECONDS)) {
                    throw new Querier.QueryFailedException("the groups did not run at once", null);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Querier.QueryFailedException("interrupted", e);
            }
            return one(1);
        };

        Map<String, Object> out = invoke(handler(groups(groups, 1), querier, new InMemoryAlertStore(), groups), NOON);

        assertThat(threads)
                .hasSize(groups)
                .doesNotContain(Thread.currentThread().getName());
        assertThat(out.get("groups").toString()).doesNotContain("did not run at once");
        assertThat(notified)
                .containsExactlyInAnyOrder(
                        "A0_0 firing @2026-11-20T12:00:00Z",
                        "A1_0 firing @2026-11-20T12:00:00Z",
                        "A2_0 firing @2026-11-20T12:00:00Z",
                        "A3_0 firing @2026-11-20T12:00:00Z");
        // The summaries keep the files' group order, whatever order the groups finished in.
        assertThat(out.get("groups").toString()).containsSubsequence("r.yml;g0", "r.yml;g1", "r.yml;g2", "r.yml;g3");
    }

    @Test
    void handleRequest_whenARuleFires_notifiesItBeforeTheNextRuleOfItsGroupIsEvaluated() throws Exception {
        List<String> seenByLaterRules = Collections.synchronizedList(new ArrayList<>());
        Querier querier = (expr, t, interval) -> {
            seenByLaterRules.add(List.copyOf(notified).toString());
            return one(1);
        };

        invoke(handler(groups(1, 3), querier, new InMemoryAlertStore(), 1), NOON);

        assertThat(seenByLaterRules)
                .containsExactly(
                        "[]",
                        "[A0_0 firing @2026-11-20T12:00:00Z]",
                        "[A0_0 firing @2026-11-20T12:00:00Z, A0_1 firing @2026-11-20T12:00:00Z]");
    }

    @Test
    void handleRequest_whenTwoInvocationsOfTheSameTimesRaceOverOneStore_notifiesEachTransitionOnce() throws Exception {
        int groups = 6;
        int perGroup = 5;
        Querier querier = (expr, t, interval) -> t == NOON.plusSeconds(120).toEpochMilli() ? List.of() : one(1);
        InMemoryAlertStore store = new InMemoryAlertStore();
        RuleSet rules = groups(groups, perGroup);
        RulesHandler first = handler(rules, querier, store, 3);
        RulesHandler second = handler(rules, querier, store, 3);

        try (ExecutorService callers = Executors.newFixedThreadPool(2)) {
            for (int minute = 0; minute <= 2; minute++) {
                Instant t = NOON.plusSeconds(minute * 60L);
                // EventBridge delivers at least once: the same schedule twice, at the same moment.
                Future<Map<String, Object>> a = callers.submit(() -> invoke(first, t));
                Future<Map<String, Object>> b = callers.submit(() -> invoke(second, t));
                a.get(30, TimeUnit.SECONDS);
                b.get(30, TimeUnit.SECONDS);
            }
        }

        List<String> expected = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            for (int r = 0; r < perGroup; r++) {
                expected.add("A" + g + "_" + r + " firing @2026-11-20T12:00:00Z");
                expected.add("A" + g + "_" + r + " inactive @2026-11-20T12:02:00Z");
            }
        }
        assertThat(notified).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(store.groupEvaluatedAt("r.yml;g0"))
                .isEqualTo(NOON.plusSeconds(120).toEpochMilli());
    }

    @Test
    void handleRequest_whenOneGroupThrows_failsTheInvocationAfterTheOtherGroupsRan() throws Exception {
        Querier querier = (expr, t, interval) -> one(1);
        InMemoryAlertStore healthy = new InMemoryAlertStore();
        AlertStore store = new AlertStore() {
            @Override
            public Snapshot load(String ruleKey) {
                if (ruleKey.contains(";g0;")) {
                    throw new IllegalStateException("broken on purpose");
                }
                return healthy.load(ruleKey);
            }

            @Override
            public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
                return healthy.replace(ruleKey, expectedVersion, evaluatedAt, alerts);
            }

            @Override
            public long groupEvaluatedAt(String groupKey) {
                return healthy.groupEvaluatedAt(groupKey);
            }

            @Override
            public void groupEvaluated(String groupKey, long evaluatedAt) {
                healthy.groupEvaluated(groupKey, evaluatedAt);
            }
        };
        RulesHandler h = handler(groups(3, 1), querier, store, 3);

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> invoke(h, NOON))
                .hasStackTraceContaining("broken on purpose");
        assertThat(notified)
                .containsExactlyInAnyOrder("A1_0 firing @2026-11-20T12:00:00Z", "A2_0 firing @2026-11-20T12:00:00Z");
    }
}
