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

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.rules.internal.GoFormat;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The bodies of Prometheus' {@code GET /api/v1/rules} and {@code GET /api/v1/alerts} (Prometheus 2.42,
 * web/api/v1/api.go), built from the deployed rule files and the alert state in the table, so Grafana's alerting view
 * lists Pulse's rules and alerts as it lists Prometheus'. Not routed yet: the HTTP routes are the next step (see
 * docs/alerting.md, "What is left"). What Pulse does not store, it answers as Prometheus answers a rule it has not
 * evaluated: {@code health} {@code ok} once evaluated ({@code unknown} before), {@code lastError} empty,
 * {@code evaluationTime} 0.
 */
public final class RulesApi {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final RuleSet rules;
    private final AlertStore store;

    public RulesApi(RuleSet rules, AlertStore store) {
        this.rules = rules;
        this.store = store;
    }

    /**
     * {@code /api/v1/rules}: every group with its rules; {@code type} {@code alert} or {@code record} keeps one kind
     * (null: both), as Prometheus' {@code type} parameter.
     */
    public ObjectNode rules(String type) {
        if (type != null && !Set.of("alert", "record").contains(type)) {
            throw new IllegalArgumentException(
                    "invalid query parameter type='" + type + "', must be one of alert, record");
        }
        ObjectNode body = JSON.createObjectNode();
        body.put("status", "success");
        ArrayNode groups = body.putObject("data").putArray("groups");
        for (RuleGroup g : rules.groups()) {
            long groupAt = store.groupEvaluatedAt(g.key());
            ObjectNode group = JSON.createObjectNode();
            group.put("name", g.name());
            group.put("file", g.file());
            ArrayNode list = group.putArray("rules");
            for (int i = 0; i < g.rules().size(); i++) {
                Rule r = g.rules().get(i);
                if (r instanceof AlertingRule a && !"record".equals(type)) {
                    list.add(alerting(a, store.load(GroupEvaluator.ruleKey(g, i))));
                } else if (r instanceof RecordingRule rec && !"alert".equals(type)) {
                    list.add(recording(rec, groupAt));
                }
            }
            group.put("interval", g.intervalMillis() / 1000.0);
            group.put("limit", g.limit());
            group.put("evaluationTime", 0);
            group.put("lastEvaluation", time(groupAt));
            if (!list.isEmpty() || type == null) {
                groups.add(group);
            }
        }
        return body;
    }

    /** {@code /api/v1/alerts}: every pending and firing alert of every rule. */
    public ObjectNode alerts() {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", "success");
        ArrayNode list = body.putObject("data").putArray("alerts");
        for (RuleGroup g : rules.groups()) {
            for (int i = 0; i < g.rules().size(); i++) {
                if (g.rules().get(i) instanceof AlertingRule) {
                    active(store.load(GroupEvaluator.ruleKey(g, i)).alerts()).forEach(a -> list.add(alert(a)));
                }
            }
        }
        return body;
    }

    private static ObjectNode alerting(AlertingRule a, AlertStore.Snapshot s) {
        List<Alert> active = active(s.alerts());
        AlertState state =
                active.stream().map(Alert::state).max(Comparator.naturalOrder()).orElse(AlertState.INACTIVE);
        ObjectNode n = JSON.createObjectNode();
        n.put("state", state.wireName());
        n.put("name", a.name());
        n.put("query", a.expr());
        n.put("duration", a.forMillis() / 1000.0);
        n.put("keepFiringFor", a.keepFiringForMillis() / 1000.0);
        n.set("labels", strings(a.labels()));
        n.set("annotations", strings(a.annotations()));
        ArrayNode alerts = n.putArray("alerts");
        active.forEach(x -> alerts.add(alert(x)));
        health(n, s.version() > 0, s.evaluatedAt());
        n.put("type", "alerting");
        return n;
    }

    private static ObjectNode recording(RecordingRule r, long groupAt) {
        ObjectNode n = JSON.createObjectNode();
        n.put("name", r.name());
        n.put("query", r.expr());
        n.set("labels", strings(r.labels()));
        health(n, groupAt > 0, groupAt);
        n.put("type", "recording");
        return n;
    }

    private static void health(ObjectNode n, boolean evaluated, long at) {
        n.put("health", evaluated ? "ok" : "unknown");
        n.put("lastError", "");
        n.put("evaluationTime", 0);
        n.put("lastEvaluation", time(at));
    }

    /** Pending and firing alerts, in fingerprint order (resolved ones kept for the notifier are not active). */
    private static List<Alert> active(Map<String, Alert> alerts) {
        List<Alert> out = new ArrayList<>();
        alerts.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
            if (e.getValue().state() != AlertState.INACTIVE) {
                out.add(e.getValue());
            }
        });
        return out;
    }

    private static ObjectNode alert(Alert a) {
        ObjectNode n = JSON.createObjectNode();
        n.set("labels", strings(a.labels()));
        n.set("annotations", strings(a.annotations()));
        n.put("state", a.state().wireName());
        n.put("activeAt", time(a.activeAt()));
        n.put("value", GoFormat.exponent(a.value()));
        return n;
    }

    private static ObjectNode strings(Map<String, String> m) {
        ObjectNode n = JSON.createObjectNode();
        new java.util.TreeMap<>(m).forEach(n::put);
        return n;
    }

    /** Go's zero time for "never", as Prometheus prints a rule not evaluated yet. */
    private static String time(long millis) {
        return millis == 0
                ? "0001-01-01T00:00:00Z"
                : Instant.ofEpochMilli(millis).toString();
    }
}
