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

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.ScheduledEvent;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.retry.Deadline;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * The scheduled evaluator's entry point, invoked by its EventBridge schedule. For each group it evaluates every
 * aligned time since the group's stored cursor, oldest first, at most {@code catchUpLimit} per invocation (a missed
 * schedule, an outage or a deploy is caught up on its own timestamps); what is left is counted
 * ({@code RuleEvaluationsBehind}, alarmed) for the next invocation. A time whose state could not be stored is not
 * passed: the next invocation repeats it, and the rules that did store it refuse it as already done. Each rule's
 * firing and resolved transitions are notified only after its conditional state write won.
 *
 * <p>The rule files are loaded and validated when the container starts (and the configuration with them), so a bad
 * rule fails the first invocation, naming the file, the group, the rule and the reason.
 */
public final class RulesHandler implements RequestHandler<ScheduledEvent, Map<String, Object>> {

    private static final Logger LOG = LoggerFactory.getLogger(RulesHandler.class);
    /** Time kept for one more group evaluation: a query's budget. Below it the rest is left for the next invocation. */
    static final long MIN_EVALUATION_MILLIS = 2_000;
    /** Groups evaluated at once unless the wiring says otherwise: {@code WRITE_CONCURRENCY}'s default. */
    static final int DEFAULT_GROUP_CONCURRENCY = 8;

    private final RuleSet rules;
    private final GroupEvaluator evaluator;
    private final AlertStore store;
    private final Notifier notifier;
    private final Metrics metrics;
    private final int catchUpLimit;
    private final long safetyMarginMillis;
    private final AtomicReference<Deadline> deadline;
    private final Clock clock;
    /** Null when no Alertmanager is configured. */
    private final AlertmanagerSender alertmanager;

    private final int groupConcurrency;

    private final ColdStart coldStart = new ColdStart();

    /** Used by the Lambda runtime: configuration and rule files read and checked once per container. */
    public RulesHandler() throws RuleFileException {
        this(RulesFunction.wire(
                RulesConfig.fromEnvironment(System.getenv()),
                RulesFunction.bundledRules(),
                PulseMetrics.create("rules"),
                Clock.systemUTC()));
    }

    RulesHandler(RulesFunction.Wiring w) {
        this(
                w.rules(),
                w.evaluator(),
                w.store(),
                w.notifier(),
                w.metrics(),
                w.catchUpLimit(),
                w.safetyMarginMillis(),
                w.deadline(),
                w.clock(),
                w.alertmanager(),
                w.groupConcurrency());
    }

    RulesHandler(
            RuleSet rules,
            GroupEvaluator evaluator,
            AlertStore store,
            Notifier notifier,
            Metrics metrics,
            int catchUpLimit,
            long safetyMarginMillis,
            AtomicReference<Deadline> deadline,
            Clock clock) {
        this(rules, evaluator, store, notifier, metrics, catchUpLimit, safetyMarginMillis, deadline, clock, null);
    }

    /** @param alertmanager where firing and resolved alerts are also posted; null for none */
    RulesHandler(
            RuleSet rules,
            GroupEvaluator evaluator,
            AlertStore store,
            Notifier notifier,
            Metrics metrics,
            int catchUpLimit,
            long safetyMarginMillis,
            AtomicReference<Deadline> deadline,
            Clock clock,
            AlertmanagerSender alertmanager) {
        this(
                rules,
                evaluator,
                store,
                notifier,
                metrics,
                catchUpLimit,
                safetyMarginMillis,
                deadline,
                clock,
                alertmanager,
                DEFAULT_GROUP_CONCURRENCY);
    }

    /**
     * @param alertmanager where firing and resolved alerts are also posted; null for none
     * @param groupConcurrency groups evaluated at once (1: one after another)
     */
    RulesHandler(
            RuleSet rules,
            GroupEvaluator evaluator,
            AlertStore store,
            Notifier notifier,
            Metrics metrics,
            int catchUpLimit,
            long safetyMarginMillis,
            AtomicReference<Deadline> deadline,
            Clock clock,
            AlertmanagerSender alertmanager,
            int groupConcurrency) {
        if (groupConcurrency < 1) {
            throw new IllegalArgumentException("groupConcurrency must be at least 1, got " + groupConcurrency);
        }
        this.groupConcurrency = groupConcurrency;
        this.alertmanager = alertmanager;
        this.rules = rules;
        this.evaluator = evaluator;
        this.store = store;
        this.notifier = notifier;
        this.metrics = metrics;
        this.catchUpLimit = catchUpLimit;
        this.safetyMarginMillis = safetyMarginMillis;
        this.deadline = deadline;
        this.clock = clock;
    }

    @Override
    public Map<String, Object> handleRequest(ScheduledEvent event, Context context) {
        return PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(RulesMetric.class, metrics, m -> {
                    m.add(RulesMetric.COLD_START, coldStart.take() ? 1 : 0);
                    long started = System.nanoTime();
                    Deadline d = Deadline.inMillis(context.getRemainingTimeInMillis() - safetyMarginMillis);
                    deadline.set(d);
                    // The schedule's time, not the clock: a delayed or retried delivery evaluates the minute it was
                    // meant for.
                    long now = event != null && event.getTime() != null
                            ? event.getTime().getMillis()
                            : clock.millis();
                    Totals totals = new Totals();
                    List<Map<String, Object>> groups = runAll(now, d, m, totals);
                    m.set(RulesMetric.RULE_EVALUATIONS_BEHIND, totals.behind.sum());
                    m.set(RulesMetric.ALERTS_PENDING, totals.pending.sum());
                    m.set(RulesMetric.ALERTS_FIRING, totals.firing.sum());
                    m.set(RulesMetric.EVALUATION_DURATION_MS, (System.nanoTime() - started) / 1_000_000.0);
                    LOG.info(
                            "rules evaluated",
                            entry("groups", groups.size()),
                            entry("evaluations", m.count(RulesMetric.RULE_EVALUATIONS)),
                            entry("failures", m.count(RulesMetric.RULE_EVALUATION_FAILURES)),
                            entry("behind", totals.behind.sum()),
                            entry("firing", totals.firing.sum()),
                            entry("pending", totals.pending.sum()),
                            entry("notificationsSent", m.count(RulesMetric.NOTIFICATIONS_SENT)));
                    Map<String, Object> out = new LinkedHashMap<>();
                    out.put("groups", groups);
                    out.put("behind", totals.behind.sum());
                    return out;
                }));
    }

    /** Summed by the groups' threads. */
    private static final class Totals {
        final LongAdder behind = new LongAdder();
        final LongAdder pending = new LongAdder();
        final LongAdder firing = new LongAdder();
    }

    /**
     * Every group, at most {@code groupConcurrency} at once: a group's state items, records and cursor are its own, so
     * groups are independent (the rules within one stay in order, as Prometheus runs them). The pool lives for this
     * invocation only: closing it waits for every group, so no thread outlives the invocation, and the metrics are
     * flushed on the handler's thread after. The summaries keep the rule files' group order.
     */
    private List<Map<String, Object>> runAll(long now, Deadline d, InvocationMetrics<RulesMetric> m, Totals totals) {
        List<RuleGroup> all = rules.groups();
        List<Map<String, Object>> out = new ArrayList<>(all.size());
        int threads = Math.min(groupConcurrency, all.size());
        if (threads <= 1) {
            for (RuleGroup g : all) {
                out.add(run(g, now, d, m, totals));
            }
            return out;
        }
        // The logging context (request id, cold start) is per thread: each group's thread carries the handler's.
        Map<String, String> mdc = MDC.getCopyOfContextMap();
        List<Future<Map<String, Object>>> futures = new ArrayList<>(all.size());
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            for (RuleGroup g : all) {
                futures.add(pool.submit(() -> {
                    if (mdc != null) {
                        MDC.setContextMap(mdc);
                    }
                    try {
                        return run(g, now, d, m, totals);
                    } finally {
                        MDC.clear();
                    }
                }));
            }
        }
        for (Future<Map<String, Object>> f : futures) {
            try {
                out.add(f.get());
            } catch (ExecutionException e) {
                // As the sequential loop would: an unexpected failure fails the invocation, after every group ran.
                if (e.getCause() instanceof RuntimeException r) {
                    throw r;
                }
                if (e.getCause() instanceof Error err) {
                    throw err;
                }
                throw new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the rule groups were evaluated", e);
            }
        }
        return out;
    }

    private Map<String, Object> run(
            RuleGroup g, long now, Deadline d, InvocationMetrics<RulesMetric> m, Totals totals) {
        long interval = g.intervalMillis();
        long target = GroupEvaluator.alignedTime(g, now);
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("group", g.key());
        List<String> errors = new ArrayList<>();
        List<Long> evaluated = new ArrayList<>();
        long last;
        try {
            last = store.groupEvaluatedAt(g.key());
        } catch (AlertStore.AlertStoreException e) {
            errors.add(e.getMessage());
            LOG.error(
                    "group not evaluated: its cursor could not be read",
                    entry("group", g.key()),
                    entry("reason", e.getMessage()));
            totals.behind.increment();
            summary.put("evaluatedAt", evaluated);
            summary.put("errors", errors);
            return summary;
        }
        // A group never evaluated starts at the current time: there is no state to catch up on. After that, the next
        // multiple of the interval: a cursor left by an earlier interval (1m, now 5m) need not be one of its multiples.
        long first = last == 0 ? target : Math.floorDiv(last, interval) * interval + interval;
        long due = first > target ? 0 : (target - first) / interval + 1;
        long done = 0;
        GroupEvaluation latest = null;
        // Per alerting rule, its alerts after the latest evaluation of this run whose state write won: what
        // Alertmanager
        // is sent once the group's times are done (an earlier time's alerts would carry an endsAt already past).
        Map<String, Kept> kept = new LinkedHashMap<>();
        for (long t = first;
                t <= target && done < catchUpLimit && d.remainingMillis() >= MIN_EVALUATION_MILLIS;
                t += interval) {
            long at = t;
            // Each rule's transitions go out as soon as its state write won, not after the group's last rule.
            GroupEvaluation e = evaluator.evaluate(g, t, o -> notifyTransitions(o, at, m));
            latest = e;
            account(e, m, errors);
            if (alertmanager != null) {
                for (GroupEvaluation.Outcome o : e.rules()) {
                    if (o.rule() instanceof AlertingRule rule
                            && !o.superseded()
                            && !o.storeFailed()
                            && o.error() == null) {
                        kept.put(o.ruleKey(), new Kept(rule, e.evaluatedAt(), o.alerts()));
                    }
                }
            }
            if (e.storeFailed()) {
                break; // repeated by the next invocation; this time's rules that stored it refuse it then
            }
            try {
                store.groupEvaluated(g.key(), t);
            } catch (AlertStore.AlertStoreException ex) {
                errors.add(ex.getMessage());
                break;
            }
            evaluated.add(t);
            done++;
        }
        totals.behind.add(due - done);
        if (!kept.isEmpty()) {
            sendToAlertmanager(g, kept, d, m);
        }
        if (latest != null) {
            for (GroupEvaluation.Outcome o : latest.rules()) {
                for (Alert a : o.alerts().values()) {
                    if (a.state() == AlertState.PENDING) {
                        totals.pending.increment();
                    } else if (a.state() == AlertState.FIRING) {
                        totals.firing.increment();
                    }
                }
            }
        }
        summary.put("evaluatedAt", evaluated);
        summary.put("behind", due - done);
        summary.put("errors", errors);
        return summary;
    }

    private record Kept(AlertingRule rule, long evaluatedAt, Map<String, Alert> alerts) {}

    /**
     * Posts the group's firing and resolved alerts to Alertmanager, after their state writes (which the SNS messages
     * follow too): a failure here changes no state and no SNS message; it is counted, logged, and the next evaluation
     * sends the alerts again.
     */
    private void sendToAlertmanager(RuleGroup g, Map<String, Kept> kept, Deadline d, InvocationMetrics<RulesMetric> m) {
        List<com.fasterxml.jackson.databind.node.ObjectNode> alerts = new ArrayList<>();
        for (Kept k : kept.values()) {
            alerts.addAll(alertmanager.alerts(
                    k.rule(), k.evaluatedAt(), g.intervalMillis(), k.alerts().values()));
        }
        if (alerts.isEmpty()) {
            return;
        }
        AlertmanagerSender.Result r;
        try {
            r = alertmanager.send(alerts, d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r = new AlertmanagerSender.Result(0, 1, alerts.size(), "interrupted");
        }
        m.add(RulesMetric.ALERTMANAGER_ALERTS_SENT, r.sent());
        if (r.failedRequests() > 0) {
            m.add(RulesMetric.ALERTMANAGER_FAILURES, r.failedRequests());
            LOG.error(
                    "alerts not delivered to Alertmanager; the next evaluation sends them again",
                    entry("group", g.key()),
                    entry("endpoint", alertmanager.endpoint().toString()),
                    entry("failedRequests", r.failedRequests()),
                    entry("alerts", r.failedAlerts()),
                    entry("reason", r.firstError()));
        }
    }

    private static void account(GroupEvaluation e, InvocationMetrics<RulesMetric> m, List<String> errors) {
        for (GroupEvaluation.Outcome o : e.rules()) {
            m.increment(RulesMetric.RULE_EVALUATIONS);
            if (o.superseded()) {
                m.increment(RulesMetric.SUPERSEDED_EVALUATIONS);
            }
            if (o.error() != null) {
                m.increment(RulesMetric.RULE_EVALUATION_FAILURES);
                String message =
                        o.ruleKey() + " at " + java.time.Instant.ofEpochMilli(e.evaluatedAt()) + ": " + o.error();
                errors.add(message);
                LOG.error(
                        "rule evaluation failed",
                        entry("rule", o.ruleKey()),
                        entry("evaluatedAt", e.evaluatedAt()),
                        entry("reason", o.error()));
            }
        }
    }

    private void notifyTransitions(GroupEvaluation.Outcome o, long evaluatedAt, InvocationMetrics<RulesMetric> m) {
        if (o.transitions().isEmpty() || !(o.rule() instanceof AlertingRule rule)) {
            return;
        }
        try {
            m.add(RulesMetric.NOTIFICATIONS_SENT, notifier.send(rule, evaluatedAt, o.transitions()));
            m.add(RulesMetric.ALERTS_NOTIFIED, o.transitions().size());
        } catch (Exception ex) {
            // The state has moved on: this transition is not sent again. Logged whole so it can be sent by hand.
            m.increment(RulesMetric.NOTIFICATION_FAILURES);
            LOG.error(
                    "alert notification not delivered",
                    entry("rule", o.ruleKey()),
                    entry("evaluatedAt", evaluatedAt),
                    entry("reason", ex.toString()),
                    entry(
                            "alerts",
                            o.transitions().stream()
                                    .map(a -> Map.of(
                                            "fingerprint",
                                            a.fingerprint(),
                                            "status",
                                            a.state() == AlertState.FIRING ? "firing" : "resolved",
                                            "labels",
                                            a.labels()))
                                    .toList()));
        }
    }
}
