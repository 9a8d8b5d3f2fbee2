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

import dev.pulse.query.promql.RuleEvaluation;
import dev.pulse.rules.internal.Fingerprint;
import dev.pulse.rules.internal.GoTemplate;
import dev.pulse.rules.internal.Names;
import dev.pulse.rules.internal.TemplateException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * Evaluates a group at one timestamp with the semantics of Prometheus 2.42's rules manager (rules/alerting.go,
 * rules/recording.go, rules/manager.go): the rules in order, each recording rule's samples written before the next
 * rule runs; for each alerting rule, a new sample starts a pending alert (active since this evaluation), which fires
 * once {@code ts - activeAt >= for}; a sample that is gone ends a pending alert at once and resolves a firing one
 * (kept 15 minutes as resolved, for the notifier), unless {@code keep_firing_for} holds it firing that long after the
 * sample last disappeared. Labels, annotations and errors are Prometheus' (see {@link Alert}).
 */
public final class GroupEvaluator {

    /** Prometheus keeps a resolved alert this long so the notifier can still send it as resolved. */
    public static final long RESOLVED_RETENTION_MILLIS = 15 * 60_000L;

    private final Querier querier;
    private final AlertStore store;
    private final RecordSink sink;
    private final Map<String, String> externalLabels;
    private final String externalUrl;

    public GroupEvaluator(
            Querier querier,
            AlertStore store,
            RecordSink sink,
            Map<String, String> externalLabels,
            String externalUrl) {
        this.querier = querier;
        this.store = store;
        this.sink = sink;
        this.externalLabels = Map.copyOf(externalLabels);
        this.externalUrl = externalUrl;
    }

    /** The aligned evaluation time of a group at or before {@code nowMillis}: a multiple of its interval since the epoch. */
    public static long alignedTime(RuleGroup group, long nowMillis) {
        return Math.floorDiv(nowMillis, group.intervalMillis()) * group.intervalMillis();
    }

    /** The identity of rule {@code index} (from 0) of {@code group}: what its stored state and records are keyed by. */
    public static String ruleKey(RuleGroup group, int index) {
        // Escaped parts: group "g" with alert "A;1;B" and group "g;0;A" with alert "B" at index 1 stay two rules.
        return group.key() + ";" + index + ";"
                + Names.keyPart(group.rules().get(index).name());
    }

    public GroupEvaluation evaluate(RuleGroup group, long ts) {
        return evaluate(group, ts, o -> {});
    }

    /**
     * Evaluates {@code group} at {@code ts}, handing each rule's outcome to {@code done} as soon as the rule is
     * evaluated (its state write decided), before the next rule runs: a transition is notified when it is committed,
     * not when the whole group is.
     */
    public GroupEvaluation evaluate(RuleGroup group, long ts, Consumer<GroupEvaluation.Outcome> done) {
        List<GroupEvaluation.Outcome> outcomes = new ArrayList<>();
        List<RecordSink.Recorded> alertSeries = new ArrayList<>();
        for (int i = 0; i < group.rules().size(); i++) {
            Rule rule = group.rules().get(i);
            String key = ruleKey(group, i);
            GroupEvaluation.Outcome o = switch (rule) {
                case RecordingRule r -> record(group, r, key, ts);
                case AlertingRule a -> alert(group, a, key, ts, alertSeries);
            };
            outcomes.add(o);
            done.accept(o);
        }
        return new GroupEvaluation(group, ts, List.copyOf(outcomes), List.copyOf(alertSeries));
    }

    private GroupEvaluation.Outcome record(RuleGroup group, RecordingRule rule, String key, long ts) {
        List<RuleEvaluation.Sample> samples;
        try {
            samples = querier.query(rule.expr(), ts, group.intervalMillis());
        } catch (Querier.QueryFailedException e) {
            return new GroupEvaluation.Outcome(rule, key, 0, 0, e.getMessage(), Map.of(), false);
        }
        List<RecordSink.Recorded> out = new ArrayList<>(samples.size());
        Set<SortedMap<String, String>> seen = new HashSet<>();
        int dropped = 0;
        for (RuleEvaluation.Sample s : samples) {
            SortedMap<String, String> labels = new TreeMap<>(s.labels());
            labels.put("__name__", rule.name());
            set(labels, rule.labels());
            if (!seen.add(labels)) {
                return new GroupEvaluation.Outcome(
                        rule,
                        key,
                        samples.size(),
                        0,
                        "vector contains metrics with the same labelset after applying rule labels",
                        Map.of(),
                        false);
            }
            if (!Double.isFinite(s.value())) {
                dropped++;
                continue;
            }
            out.add(new RecordSink.Recorded(Collections.unmodifiableSortedMap(labels), s.value()));
        }
        if (group.limit() > 0 && samples.size() > group.limit()) {
            return new GroupEvaluation.Outcome(
                    rule,
                    key,
                    samples.size(),
                    0,
                    "exceeded limit of " + group.limit() + " with " + samples.size() + " series",
                    Map.of(),
                    false);
        }
        try {
            if (!out.isEmpty()) {
                sink.write(key, ts, out);
            }
        } catch (RecordSink.NotStoredException e) {
            return new GroupEvaluation.Outcome(
                    rule,
                    key,
                    samples.size(),
                    dropped,
                    "writing the recorded samples failed: " + e.getMessage(),
                    Map.of(),
                    false,
                    List.of(),
                    true);
        } catch (Exception e) {
            return new GroupEvaluation.Outcome(
                    rule,
                    key,
                    samples.size(),
                    dropped,
                    "writing the recorded samples failed: " + e.getMessage(),
                    Map.of(),
                    false);
        }
        return new GroupEvaluation.Outcome(rule, key, samples.size(), dropped, null, Map.of(), false);
    }

    private GroupEvaluation.Outcome alert(
            RuleGroup group, AlertingRule rule, String key, long ts, List<RecordSink.Recorded> alertSeries) {
        AlertStore.Snapshot snapshot;
        try {
            snapshot = store.load(key);
        } catch (AlertStore.AlertStoreException e) {
            return new GroupEvaluation.Outcome(rule, key, 0, 0, e.getMessage(), Map.of(), false, List.of(), true);
        }
        if (snapshot.version() > 0 && snapshot.evaluatedAt() >= ts) {
            // Already evaluated at this time or later (a retry, a concurrent or a late evaluation): its result stands.
            return new GroupEvaluation.Outcome(rule, key, 0, 0, null, snapshot.alerts(), true);
        }
        List<RuleEvaluation.Sample> samples;
        try {
            samples = querier.query(rule.expr(), ts, group.intervalMillis());
        } catch (Querier.QueryFailedException e) {
            // As Prometheus: a failed query leaves every alert as it was.
            return new GroupEvaluation.Outcome(rule, key, 0, 0, e.getMessage(), snapshot.alerts(), false);
        }
        Map<String, Alert> active = new HashMap<>(snapshot.alerts());
        Set<String> result = new HashSet<>();
        for (RuleEvaluation.Sample s : samples) {
            GoTemplate.Data data = new GoTemplate.Data(s.labels(), externalLabels, externalUrl, s.value());
            SortedMap<String, String> labels = new TreeMap<>(s.labels());
            labels.remove("__name__");
            SortedMap<String, String> ruleLabels = new TreeMap<>();
            rule.labelTemplates().forEach((name, t) -> ruleLabels.put(name, expand(t, data)));
            set(labels, ruleLabels);
            labels.put("alertname", rule.name());
            SortedMap<String, String> annotations = new TreeMap<>();
            rule.annotationTemplates().forEach((name, t) -> annotations.put(name, expand(t, data)));
            String fp = Fingerprint.of(labels);
            if (!result.add(fp)) {
                return new GroupEvaluation.Outcome(
                        rule,
                        key,
                        samples.size(),
                        0,
                        "vector contains metrics with the same labelset after applying alert labels",
                        snapshot.alerts(),
                        false);
            }
            Alert existing = active.get(fp);
            SortedMap<String, String> ann = Collections.unmodifiableSortedMap(annotations);
            if (existing != null && existing.state() != AlertState.INACTIVE) {
                active.put(
                        fp,
                        existing.with(
                                existing.state(),
                                s.value(),
                                ann,
                                existing.firedAt(),
                                existing.resolvedAt(),
                                existing.keepFiringSince()));
                continue;
            }
            active.put(
                    fp,
                    new Alert(
                            Collections.unmodifiableSortedMap(labels),
                            ann,
                            AlertState.PENDING,
                            s.value(),
                            ts,
                            0,
                            0,
                            0));
        }
        int activePending = 0;
        List<RecordSink.Recorded> series = new ArrayList<>();
        for (Map.Entry<String, Alert> e : new ArrayList<>(active.entrySet())) {
            Alert a = e.getValue();
            if (!result.contains(e.getKey())) {
                boolean keepFiring = false;
                long keepSince = a.keepFiringSince();
                if (a.state() == AlertState.FIRING && rule.keepFiringForMillis() > 0) {
                    if (keepSince == 0) {
                        keepSince = ts;
                    }
                    keepFiring = ts - keepSince < rule.keepFiringForMillis();
                }
                if (a.state() == AlertState.PENDING
                        || (a.resolvedAt() != 0 && ts - a.resolvedAt() > RESOLVED_RETENTION_MILLIS)) {
                    active.remove(e.getKey());
                } else if (a.state() != AlertState.INACTIVE && !keepFiring) {
                    active.put(
                            e.getKey(),
                            a.with(AlertState.INACTIVE, a.value(), a.annotations(), a.firedAt(), ts, keepSince));
                } else if (keepFiring) {
                    a = a.with(a.state(), a.value(), a.annotations(), a.firedAt(), a.resolvedAt(), keepSince);
                    active.put(e.getKey(), a);
                }
                if (!keepFiring) {
                    continue;
                }
            } else if (a.keepFiringSince() != 0) {
                a = a.with(a.state(), a.value(), a.annotations(), a.firedAt(), a.resolvedAt(), 0);
                active.put(e.getKey(), a);
            }
            activePending++;
            if (a.state() == AlertState.PENDING && ts - a.activeAt() >= rule.forMillis()) {
                a = a.with(AlertState.FIRING, a.value(), a.annotations(), ts, a.resolvedAt(), a.keepFiringSince());
                active.put(e.getKey(), a);
            }
            series.add(alertSample("ALERTS", a, 1, a.state().wireName()));
            // Whole seconds, as Prometheus writes ALERTS_FOR_STATE (float64(ActiveAt.Unix())).
            series.add(alertSample("ALERTS_FOR_STATE", a, Math.floorDiv(a.activeAt(), 1000L), null));
        }
        String error = null;
        if (group.limit() > 0 && activePending > group.limit()) {
            active.clear();
            series.clear();
            error = "exceeded limit of " + group.limit() + " with " + activePending + " alerts";
        }
        boolean kept;
        try {
            kept = store.replace(key, snapshot.version(), ts, active);
        } catch (AlertStore.StateTooLargeException e) {
            // Repeating this time would fail the same way: the rule fails (its alerts as they were, as after a failed
            // query) and the group's cursor moves on, rather than stop every rule of the group at this time for good.
            return new GroupEvaluation.Outcome(rule, key, samples.size(), 0, e.getMessage(), snapshot.alerts(), false);
        } catch (AlertStore.AlertStoreException e) {
            // Nothing changed, nothing is notified: the next evaluation starts again from the stored alerts.
            return new GroupEvaluation.Outcome(
                    rule, key, samples.size(), 0, e.getMessage(), snapshot.alerts(), false, List.of(), true);
        }
        if (!kept) {
            return new GroupEvaluation.Outcome(rule, key, samples.size(), 0, error, Map.copyOf(active), true);
        }
        alertSeries.addAll(series);
        if (!series.isEmpty()) {
            // After the state write won, as Prometheus appends them after the rule's evaluation: only the kept
            // evaluation stores them, under a key of their own (their own exactly-once position, apart from a
            // recording rule's). A failure loses this time's samples only: the state and its transitions stand.
            try {
                sink.write(alertSeriesKey(key), ts, series);
            } catch (Exception e) {
                error = (error == null ? "" : error + "; ") + "writing the ALERTS series failed: " + e.getMessage();
            }
        }
        List<Alert> transitions = new ArrayList<>();
        for (Alert a : active.values()) {
            if ((a.state() == AlertState.FIRING && a.firedAt() == ts)
                    || (a.state() == AlertState.INACTIVE && a.resolvedAt() == ts)) {
                transitions.add(a);
            }
        }
        transitions.sort(java.util.Comparator.comparing(Alert::fingerprint));
        return new GroupEvaluation.Outcome(
                rule, key, samples.size(), 0, error, Map.copyOf(active), false, List.copyOf(transitions), false);
    }

    /** The key an alerting rule's {@code ALERTS} and {@code ALERTS_FOR_STATE} samples are stored under. */
    public static String alertSeriesKey(String ruleKey) {
        return ruleKey + ";ALERTS";
    }

    private static RecordSink.Recorded alertSample(String name, Alert a, double value, String alertState) {
        SortedMap<String, String> labels = new TreeMap<>(a.labels());
        labels.put("__name__", name);
        if (alertState != null) {
            labels.put("alertstate", alertState);
        }
        return new RecordSink.Recorded(Collections.unmodifiableSortedMap(labels), value);
    }

    /** Prometheus' labels.Builder.Set: an empty value removes the label. */
    private static void set(SortedMap<String, String> labels, Map<String, String> over) {
        over.forEach((name, value) -> {
            if (value.isEmpty()) {
                labels.remove(name);
            } else {
                labels.put(name, value);
            }
        });
    }

    /** A template's expansion, or Prometheus' text for a failed one. */
    private static String expand(GoTemplate t, GoTemplate.Data data) {
        try {
            return t.execute(data);
        } catch (TemplateException e) {
            return "<error expanding template: " + e.getMessage() + ">";
        }
    }
}
