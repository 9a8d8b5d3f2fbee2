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
import dev.pulse.rules.internal.Fingerprint;
import dev.pulse.rules.internal.GoFormat;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Alertmanager's webhook message, version 4 (https://prometheus.io/docs/alerting/latest/configuration/#webhook_config),
 * as Alertmanager posts it to a webhook receiver, so receivers written for Alertmanager read Pulse's notifications
 * unchanged: {@code version}, {@code groupKey}, {@code truncatedAlerts}, {@code status}, {@code receiver},
 * {@code groupLabels}, {@code commonLabels}, {@code commonAnnotations}, {@code externalURL}, {@code alerts}, each alert
 * with {@code status}, {@code labels}, {@code annotations}, {@code startsAt}, {@code endsAt}, {@code generatorURL},
 * {@code fingerprint}.
 *
 * <p>One message per rule and evaluation, grouped by {@code alertname} (Alertmanager's default route groups by
 * nothing; grouping by the rule keeps one rule's alerts together and its {@code groupKey} stable). Labels are the
 * alert's with the external labels added where the alert has none of that name (as Prometheus sends them);
 * {@code startsAt} is when the alert fired, {@code endsAt} when it resolved or Go's zero time while it fires (as
 * Alertmanager prints an alert without an end); the fingerprint is Alertmanager's, over those labels. A message
 * stays under SNS's 256 KiB: more alerts are split over several messages, and an alert too large alone has its
 * longest annotation (then label) values shortened.
 */
public final class WebhookMessage {

    /** SNS's message limit is 262,144 bytes; what is left covers the JSON punctuation between alerts. */
    static final int MAX_BYTES = 250_000;
    /**
     * The most one alert takes: a message holds at most {@code MAX_BYTES / 2} of alerts plus the common labels and
     * annotations, which are at most one alert's, so alerts under this bound keep every message under SNS's limit.
     */
    static final int MAX_ALERT_BYTES = 100_000;
    /** What ends an annotation or label value shortened to fit {@link #MAX_ALERT_BYTES}. */
    static final String SHORTENED = "...(shortened to fit an SNS message)";

    private static final String ZERO_TIME = "0001-01-01T00:00:00Z";
    private static final ObjectMapper JSON = new ObjectMapper();

    private WebhookMessage() {}

    /** The messages for {@code transitions} of {@code rule}; every transition in exactly one of them. */
    public static List<String> build(
            AlertingRule rule,
            List<Alert> transitions,
            Map<String, String> externalLabels,
            String externalUrl,
            String receiver) {
        List<ObjectNode> alerts = new ArrayList<>();
        for (Alert a : transitions) {
            alerts.add(alert(rule, a, externalLabels, externalUrl));
        }
        List<String> messages = new ArrayList<>();
        List<ObjectNode> chunk = new ArrayList<>();
        int bytes = 0;
        for (ObjectNode a : alerts) {
            int size = a.toString().getBytes(StandardCharsets.UTF_8).length;
            if (!chunk.isEmpty() && bytes + size > MAX_BYTES / 2) {
                messages.add(message(rule, chunk, externalUrl, receiver));
                chunk = new ArrayList<>();
                bytes = 0;
            }
            chunk.add(a);
            bytes += size;
        }
        if (!chunk.isEmpty()) {
            messages.add(message(rule, chunk, externalUrl, receiver));
        }
        return messages;
    }

    private static ObjectNode alert(
            AlertingRule rule, Alert a, Map<String, String> externalLabels, String externalUrl) {
        NavigableMap<String, String> labels = new TreeMap<>(a.labels());
        externalLabels.forEach(labels::putIfAbsent);
        boolean firing = a.state() == AlertState.FIRING;
        ObjectNode n = JSON.createObjectNode();
        n.put("status", firing ? "firing" : "resolved");
        n.set("labels", strings(labels));
        n.set("annotations", strings(a.annotations()));
        n.put("startsAt", Instant.ofEpochMilli(a.firedAt()).toString());
        n.put(
                "endsAt",
                firing ? ZERO_TIME : Instant.ofEpochMilli(a.resolvedAt()).toString());
        n.put("generatorURL", generatorUrl(externalUrl, rule.expr()));
        n.put("fingerprint", Fingerprint.of(labels));
        shorten(n);
        return n;
    }

    /**
     * Shortens an alert over {@link #MAX_ALERT_BYTES} (annotations each up to a template's 65,536 characters, any
     * number of them) rather than lose its notification to SNS's refusal: the longest annotation value first, then
     * the longest label value other than {@code alertname}, halved until the alert fits. The fingerprint stays the
     * one of the full labels, so receivers still match the alert with its other notifications.
     */
    private static void shorten(ObjectNode alert) {
        int size = alert.toString().getBytes(StandardCharsets.UTF_8).length;
        while (size > MAX_ALERT_BYTES) {
            ObjectNode longestIn = null;
            String longestKey = null;
            int longest = 0;
            for (String field : List.of("annotations", "labels")) {
                ObjectNode values = (ObjectNode) alert.get(field);
                for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e : values.properties()) {
                    int length = e.getValue().asText().length();
                    if (!e.getKey().equals("alertname") && length > longest) {
                        longest = length;
                        longestIn = values;
                        longestKey = e.getKey();
                    }
                }
                if (longestIn != null && longest > SHORTENED.length() * 2) {
                    break; // annotations before labels
                }
            }
            if (longestIn == null || longest <= SHORTENED.length() * 2) {
                return; // nothing left worth shortening: SNS refuses it, which is counted and logged whole
            }
            String v = longestIn.get(longestKey).asText();
            int cut = longest / 2;
            if (Character.isHighSurrogate(v.charAt(cut - 1))) {
                cut--;
            }
            longestIn.put(longestKey, v.substring(0, cut) + SHORTENED);
            size = alert.toString().getBytes(StandardCharsets.UTF_8).length;
        }
    }

    private static String message(AlertingRule rule, List<ObjectNode> alerts, String externalUrl, String receiver) {
        ObjectNode m = JSON.createObjectNode();
        boolean anyFiring =
                alerts.stream().anyMatch(a -> a.get("status").asText().equals("firing"));
        m.put("version", "4");
        // Alertmanager's group key: the route's key, then the group labels as model.LabelSet prints them (%q).
        m.put("groupKey", "{}:{alertname=" + GoFormat.quote(rule.name()) + "}");
        m.put("truncatedAlerts", 0);
        m.put("status", anyFiring ? "firing" : "resolved");
        m.put("receiver", receiver);
        m.set("groupLabels", strings(Map.of("alertname", rule.name())));
        m.set("commonLabels", strings(common(alerts, "labels")));
        m.set("commonAnnotations", strings(common(alerts, "annotations")));
        m.put("externalURL", externalUrl);
        ArrayNode list = m.putArray("alerts");
        // Firing first, then resolved, each by fingerprint: the same transitions always give the same message.
        alerts.stream()
                .sorted((x, y) -> {
                    int s = Boolean.compare(
                            y.get("status").asText().equals("firing"),
                            x.get("status").asText().equals("firing"));
                    return s != 0
                            ? s
                            : x.get("fingerprint")
                                    .asText()
                                    .compareTo(y.get("fingerprint").asText());
                })
                .forEach(list::add);
        return m.toString();
    }

    /** The pairs every alert has with the same value, as Alertmanager's commonLabels and commonAnnotations. */
    private static Map<String, String> common(List<ObjectNode> alerts, String field) {
        Map<String, String> common = new LinkedHashMap<>();
        alerts.get(0)
                .get(field)
                .properties()
                .forEach(e -> common.put(e.getKey(), e.getValue().asText()));
        for (ObjectNode a : alerts.subList(1, alerts.size())) {
            common.entrySet()
                    .removeIf(e -> !a.get(field).has(e.getKey())
                            || !a.get(field).get(e.getKey()).asText().equals(e.getValue()));
        }
        return common;
    }

    private static ObjectNode strings(Map<String, String> map) {
        ObjectNode n = JSON.createObjectNode();
        new TreeMap<>(map).forEach(n::put);
        return n;
    }

    /** Prometheus' link to the expression: {@code <externalURL>/graph?g0.expr=<expr, Go's QueryEscape>&g0.tab=1}. */
    static String generatorUrl(String externalUrl, String expr) {
        // Go's url.QueryEscape keeps [A-Za-z0-9-_.~] and writes a space as '+'; Java's keeps '*' and escapes '~'.
        String q = URLEncoder.encode(expr, StandardCharsets.UTF_8)
                .replace("*", "%2A")
                .replace("%7E", "~");
        return externalUrl + "/graph?g0.expr=" + q + "&g0.tab=1";
    }
}
