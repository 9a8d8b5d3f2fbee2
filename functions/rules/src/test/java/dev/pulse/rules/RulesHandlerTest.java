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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import org.joda.time.DateTime;
import org.junit.jupiter.api.Test;

/**
 * The scheduled evaluator: every group at each aligned time since its cursor, oldest first, within the catch-up
 * limit; the rest counted as behind; a time whose state was not stored repeated by the next invocation; transitions
 * notified once, after the state write won.
 */
class RulesHandlerTest {

    private static final long MINUTE = 60_000;
    private static final Instant NOON = Instant.parse("2026-11-20T12:00:00Z");

    // Written by the groups' threads.
    private final List<String> asked = Collections.synchronizedList(new ArrayList<>());
    private final Map<Long, Double> values = new HashMap<>();
    private final Querier querier = (expr, t, interval) -> {
        asked.add(expr + "@" + Instant.ofEpochMilli(t) + "/" + interval);
        Double v = values.getOrDefault(t, 1.0);
        return v == null
                ? List.of()
                : List.of(new RuleEvaluation.Sample(new TreeMap<>(Map.of("__name__", "x", "i", "a")), v));
    };
    private final List<String> notified = Collections.synchronizedList(new ArrayList<>());
    private final Notifier notifier = (rule, at, transitions) -> {
        transitions.forEach(
                a -> notified.add(rule.name() + " " + a.state().wireName() + " @" + Instant.ofEpochMilli(at)));
        return 1;
    };
    private final RecordingMetrics metrics = new RecordingMetrics();

    private static ScheduledEvent at(Instant t) {
        ScheduledEvent event = new ScheduledEvent();
        event.setTime(new DateTime(t.toEpochMilli()));
        return event;
    }

    private RulesHandler handler(RuleSet rules, AlertStore store, int catchUpLimit) {
        GroupEvaluator evaluator = new GroupEvaluator(querier, store, (key, at, samples) -> {}, Map.of(), "");
        return new RulesHandler(
                rules,
                evaluator,
                store,
                notifier,
                metrics,
                catchUpLimit,
                0,
                new AtomicReference<>(Deadline.inMillis(60_000)),
                new MutableClock(Instant.EPOCH));
    }

    private static RuleSet oneAlert(String expr) throws RuleFileException {
        return RuleFiles.load(Map.of("r.yml", "groups:\n- name: g\n  rules: [{alert: A, expr: '" + expr + "'}]\n"));
    }

    private Map<String, Object> invoke(RulesHandler h, Instant t) {
        return h.handleRequest(at(t), new TestContext("req", 60_000, 512));
    }

    @Test
    void handleRequest_whenTheScheduleFiresForTheFirstTime_evaluatesEachGroupAtTheLastMultipleOfItsInterval()
            throws Exception {
        RuleSet rules = RuleFiles.load(Map.of(
                "r.yml",
                "groups:\n"
                        + "- name: every-minute\n  rules: [{alert: A, expr: x > 0}]\n"
                        + "- name: every-five\n  interval: 5m\n  rules: [{record: 'r:x', expr: x}]\n"));

        Map<String, Object> out =
                invoke(handler(rules, new InMemoryAlertStore(), 10), Instant.parse("2026-11-20T12:07:03Z"));

        assertThat(asked)
                .containsExactlyInAnyOrder("x > 0@2026-11-20T12:07:00Z/60000", "x@2026-11-20T12:05:00Z/300000");
        assertThat(out.get("behind")).isEqualTo(0L);
        assertThat(out.get("groups").toString()).contains("errors=[]");
    }

    @Test
    void handleRequest_whenScheduledRunsWereMissed_evaluatesEveryMissedTimeOldestFirst() throws Exception {
        InMemoryAlertStore store = new InMemoryAlertStore();
        RulesHandler h = handler(oneAlert("x > 0"), store, 10);
        invoke(h, NOON);
        asked.clear();

        invoke(h, NOON.plusSeconds(4 * 60 + 30));

        assertThat(asked)
                .containsExactly(
                        "x > 0@2026-11-20T12:01:00Z/60000",
                        "x > 0@2026-11-20T12:02:00Z/60000",
                        "x > 0@2026-11-20T12:03:00Z/60000",
                        "x > 0@2026-11-20T12:04:00Z/60000");
        assertThat(store.groupEvaluatedAt("r.yml;g"))
                .isEqualTo(NOON.plusSeconds(240).toEpochMilli());
        assertThat(metrics.last("RuleEvaluationsBehind")).isZero();
        assertThat(metrics.last("RuleEvaluations")).isEqualTo(4);
    }

    @Test
    void handleRequest_whenMoreTimesWereMissedThanTheLimit_evaluatesTheOldestAndCountsTheRestBehind() throws Exception {
        InMemoryAlertStore store = new InMemoryAlertStore();
        RulesHandler h = handler(oneAlert("x > 0"), store, 3);
        invoke(h, NOON);
        asked.clear();

        Map<String, Object> out = invoke(h, NOON.plusSeconds(10 * 60));

        assertThat(asked).hasSize(3).first().asString().contains("12:01:00Z");
        assertThat(out.get("behind")).isEqualTo(7L);
        assertThat(metrics.last("RuleEvaluationsBehind")).isEqualTo(7);
        asked.clear();
        invoke(h, NOON.plusSeconds(10 * 60));
        assertThat(asked).hasSize(3).first().asString().contains("12:04:00Z");
        assertThat(metrics.last("RuleEvaluationsBehind")).isEqualTo(4);
    }

    @Test
    void handleRequest_whenTheGroupIntervalGrewSinceTheLastEvaluation_continuesOnMultiplesOfTheNewInterval()
            throws Exception {
        InMemoryAlertStore store = new InMemoryAlertStore();
        store.groupEvaluated("r.yml;g", NOON.plusSeconds(3 * 60).toEpochMilli()); // left by a 1m interval
        RuleSet rules = RuleFiles.load(
                Map.of("r.yml", "groups:\n- name: g\n  interval: 5m\n" + "  rules: [{alert: A, expr: x > 0}]\n"));

        invoke(handler(rules, store, 10), NOON.plusSeconds(11 * 60));

        assertThat(asked).containsExactly("x > 0@2026-11-20T12:05:00Z/300000", "x > 0@2026-11-20T12:10:00Z/300000");
    }

    @Test
    void handleRequest_whenTheSameScheduledEventIsDeliveredTwice_notifiesEachTransitionOnce() throws Exception {
        RulesHandler h = handler(oneAlert("x > 0"), new InMemoryAlertStore(), 10);
        values.put(NOON.plusSeconds(120).toEpochMilli(), null);

        for (int minute = 0; minute <= 2; minute++) {
            invoke(h, NOON.plusSeconds(minute * 60L));
            invoke(h, NOON.plusSeconds(minute * 60L)); // EventBridge delivers at least once
        }

        assertThat(notified).containsExactly("A firing @2026-11-20T12:00:00Z", "A inactive @2026-11-20T12:02:00Z");
        assertThat(metrics.last("SupersededEvaluations")).isZero(); // a time already passed is not evaluated at all
    }

    @Test
    void handleRequest_whenTheStateWriteFails_leavesThatTimeForTheNextInvocationWithoutNotifying() throws Exception {
        InMemoryAlertStore real = new InMemoryAlertStore();
        boolean[] failing = {true};
        AlertStore flaky = new AlertStore() {
            @Override
            public Snapshot load(String ruleKey) {
                return real.load(ruleKey);
            }

            @Override
            public boolean replace(String ruleKey, long expectedVersion, long evaluatedAt, Map<String, Alert> alerts) {
                if (failing[0]) {
                    throw new AlertStoreException(
                            "could not write the alert state of rule " + ruleKey + ": throttled", null);
                }
                return real.replace(ruleKey, expectedVersion, evaluatedAt, alerts);
            }

            @Override
            public long groupEvaluatedAt(String groupKey) {
                return real.groupEvaluatedAt(groupKey);
            }

            @Override
            public void groupEvaluated(String groupKey, long evaluatedAt) {
                real.groupEvaluated(groupKey, evaluatedAt);
            }
        };
        RulesHandler h = handler(oneAlert("x > 0"), flaky, 10);
        real.groupEvaluated("r.yml;g", NOON.minusSeconds(60).toEpochMilli());

        Map<String, Object> failed = invoke(h, NOON.plusSeconds(60));

        assertThat(notified).isEmpty();
        assertThat(failed.get("behind")).isEqualTo(2L);
        assertThat(failed.get("groups").toString()).contains("throttled");
        assertThat(metrics.last("RuleEvaluationFailures")).isEqualTo(1);
        failing[0] = false;
        asked.clear();
        invoke(h, NOON.plusSeconds(60));
        assertThat(asked).containsExactly("x > 0@2026-11-20T12:00:00Z/60000", "x > 0@2026-11-20T12:01:00Z/60000");
        assertThat(notified).containsExactly("A firing @2026-11-20T12:00:00Z");
    }

    @Test
    void handleRequest_whenTheTopicRefusesTheMessage_countsTheFailureAndKeepsTheState() throws Exception {
        InMemoryAlertStore store = new InMemoryAlertStore();
        GroupEvaluator evaluator = new GroupEvaluator(querier, store, (key, at, samples) -> {}, Map.of(), "");
        RulesHandler h = new RulesHandler(
                oneAlert("x > 0"),
                evaluator,
                store,
                (rule, at, transitions) -> {
                    throw new IllegalStateException("topic not found");
                },
                metrics,
                10,
                0,
                new AtomicReference<>(Deadline.inMillis(60_000)),
                new MutableClock(Instant.EPOCH));

        invoke(h, NOON);

        assertThat(metrics.last("NotificationFailures")).isEqualTo(1);
        assertThat(metrics.last("NotificationsSent")).isZero();
        assertThat(metrics.last("AlertsFiring")).isEqualTo(1);
        assertThat(store.load("r.yml;g;0;A").alerts()).hasSize(1);
    }

    private RulesHandler handlerSendingTo(RecordingAlertmanager am, AlertStore store, int catchUpLimit)
            throws RuleFileException {
        GroupEvaluator evaluator = new GroupEvaluator(querier, store, (key, at, samples) -> {}, Map.of(), "");
        return new RulesHandler(
                RuleFiles.load(Map.of("r.yml", "groups:\n- name: g\n  rules: [{alert: A, expr: 'x > 0', for: 1m}]\n")),
                evaluator,
                store,
                notifier,
                metrics,
                catchUpLimit,
                0,
                new AtomicReference<>(Deadline.inMillis(60_000)),
                new MutableClock(Instant.EPOCH),
                new AlertmanagerSender(
                        AlertmanagerSender.httpClient(), am.url(), AlertmanagerAuth.none(), Map.of(), ""));
    }

    private static List<String> posted(RecordingAlertmanager am) {
        List<String> out = new ArrayList<>();
        for (RecordingAlertmanager.Request r : am.requests) {
            try {
                for (com.fasterxml.jackson.databind.JsonNode a :
                        new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body())) {
                    out.add(a.get("labels").get("i").asText() + " "
                            + a.get("startsAt").asText() + ".."
                            + a.get("endsAt").asText());
                }
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        return out;
    }

    @Test
    void handleRequest_whenAlertmanagerIsSet_postsTheFiringAlertAtEveryEvaluationAndTheResolvedOneWhileKept()
            throws Exception {
        try (RecordingAlertmanager am = new RecordingAlertmanager()) {
            RulesHandler h = handlerSendingTo(am, new InMemoryAlertStore(), 10);
            values.put(NOON.plusSeconds(180).toEpochMilli(), null);
            values.put(NOON.plusSeconds(240).toEpochMilli(), null);

            for (int minute = 0; minute <= 4; minute++) {
                invoke(h, NOON.plusSeconds(minute * 60L));
            }
            invoke(h, NOON.plusSeconds(4 * 60L)); // a duplicate delivery: its evaluation is refused, nothing sent

            assertThat(posted(am))
                    .containsExactly(
                            // 12:00 pending: not sent
                            "a 2026-11-20T12:01:00.000Z..2026-11-20T12:05:00.000Z",
                            "a 2026-11-20T12:01:00.000Z..2026-11-20T12:06:00.000Z",
                            "a 2026-11-20T12:01:00.000Z..2026-11-20T12:03:00.000Z",
                            "a 2026-11-20T12:01:00.000Z..2026-11-20T12:03:00.000Z");
            assertThat(notified).containsExactly("A firing @2026-11-20T12:01:00Z", "A inactive @2026-11-20T12:03:00Z");
            assertThat(metrics.last("AlertmanagerAlertsSent")).isZero();
            assertThat(metrics.last("AlertmanagerFailures")).isZero();
        }
    }

    @Test
    void handleRequest_whenCatchingUpSeveralTimes_postsOnlyTheLatestTimesAlerts() throws Exception {
        try (RecordingAlertmanager am = new RecordingAlertmanager()) {
            InMemoryAlertStore store = new InMemoryAlertStore();
            RulesHandler h = handlerSendingTo(am, store, 10);
            invoke(h, NOON);

            invoke(h, NOON.plusSeconds(4 * 60L));

            assertThat(am.requests).hasSize(1);
            assertThat(posted(am)).containsExactly("a 2026-11-20T12:01:00.000Z..2026-11-20T12:08:00.000Z");
            assertThat(metrics.last("AlertmanagerAlertsSent")).isEqualTo(1);
        }
    }

    @Test
    void handleRequest_whenAlertmanagerFails_countsItAndStillStoresTheStateAndNotifiesTheTopicOnce() throws Exception {
        try (RecordingAlertmanager am = new RecordingAlertmanager()) {
            am.status = 503;
            InMemoryAlertStore store = new InMemoryAlertStore();
            RulesHandler h = handlerSendingTo(am, store, 10);

            invoke(h, NOON);
            invoke(h, NOON.plusSeconds(60));
            invoke(h, NOON.plusSeconds(120));

            assertThat(am.requests).hasSize(2);
            assertThat(metrics.last("AlertmanagerFailures")).isEqualTo(1);
            assertThat(metrics.last("AlertmanagerAlertsSent")).isZero();
            assertThat(notified).containsExactly("A firing @2026-11-20T12:01:00Z");
            assertThat(store.groupEvaluatedAt("r.yml;g"))
                    .isEqualTo(NOON.plusSeconds(120).toEpochMilli());
            assertThat(store.load("r.yml;g;0;A").alerts().values())
                    .singleElement()
                    .extracting(Alert::state)
                    .isEqualTo(AlertState.FIRING);
        }
    }
}
