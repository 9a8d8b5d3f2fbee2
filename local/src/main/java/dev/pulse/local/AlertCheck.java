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
package dev.pulse.local;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code make run}'s alert check: of the notifications the local subscriber received, the bundled rule the load makes
 * fire and resolve ({@link #EXPECTED_ALERT} with the run's {@code run} label) must have come exactly once firing and
 * once resolved. Also measures its detection latency: from the first canary sent (the datapoint that crosses the
 * rule's threshold) to the firing notification's arrival.
 */
final class AlertCheck {

    /** The rule of rules/pulse.rules.yml that fires while a load run writes its canary. */
    static final String EXPECTED_ALERT = "LoadgenRunning";
    /** The rule's group interval (rules/pulse.rules.yml, group loadgen-canary). */
    static final long INTERVAL_MILLIS = 60_000;
    /** The target for the detection latency at the template's defaults: one evaluation interval + 30 s. */
    static final long DETECTION_TARGET_MILLIS = INTERVAL_MILLIS + 30_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The verdict, the report's {@code alerts} object and the console lines. */
    record Outcome(boolean passed, ObjectNode json, List<String> lines) {}

    /** One alert (a fingerprint) and what arrived of it. */
    private static final class Seen {
        String alertname;
        Map<String, String> labels;
        int firing;
        int resolved;
        String startsAt;
        String endsAt;
        long firingArrivedAt = -1;
        long resolvedArrivedAt = -1;
    }

    private AlertCheck() {}

    /** Whether the expected alert's resolved notification has arrived (the run can stop waiting). */
    static boolean resolved(List<AlertSubscriber.Delivery> deliveries, String runId) {
        return deliveries.stream()
                .anyMatch(d -> expected(d, runId) && d.status().equals("resolved"));
    }

    static boolean expected(AlertSubscriber.Delivery d, String runId) {
        return d.alertname().equals(EXPECTED_ALERT) && runId.equals(d.labels().get("run"));
    }

    /**
     * Judges the deliveries.
     *
     * @param firstCanaryMillis when the run's first canary was sent (epoch ms)
     * @param lastCanaryMillis  when its last one was sent
     */
    static Outcome judge(
            List<AlertSubscriber.Delivery> deliveries, String runId, long firstCanaryMillis, long lastCanaryMillis) {
        Map<String, Seen> byFingerprint = new LinkedHashMap<>();
        for (AlertSubscriber.Delivery d : deliveries) {
            Seen s = byFingerprint.computeIfAbsent(d.fingerprint() + "|" + d.labels(), k -> new Seen());
            s.alertname = d.alertname();
            s.labels = d.labels();
            s.startsAt = d.startsAt();
            if (d.status().equals("firing")) {
                s.firing++;
                if (s.firingArrivedAt < 0) {
                    s.firingArrivedAt = d.receivedAtMillis();
                }
            } else {
                s.resolved++;
                s.endsAt = d.endsAt();
                if (s.resolvedArrivedAt < 0) {
                    s.resolvedArrivedAt = d.receivedAtMillis();
                }
            }
        }
        String expectedName = EXPECTED_ALERT + "{run=\"" + runId + "\"}";
        List<Seen> mine = byFingerprint.values().stream()
                .filter(s -> s.alertname.equals(EXPECTED_ALERT) && runId.equals(s.labels.get("run")))
                .toList();
        ObjectNode n = JSON.createObjectNode();
        n.put("checked", true);
        n.put("expected", expectedName);
        List<String> lines = new ArrayList<>();
        ArrayNode all = n.putArray("alerts");
        for (Seen s : byFingerprint.values()) {
            ObjectNode a = all.addObject();
            a.put("alertname", s.alertname);
            ObjectNode labels = a.putObject("labels");
            new TreeMap<>(s.labels).forEach(labels::put);
            a.put("firingMessages", s.firing);
            a.put("resolvedMessages", s.resolved);
            a.put("firedAt", s.startsAt);
            if (s.endsAt != null) {
                a.put("resolvedAt", s.endsAt);
            }
            if (s.firingArrivedAt >= 0) {
                a.put("firingDeliveredAt", iso(s.firingArrivedAt));
            }
            if (s.resolvedArrivedAt >= 0) {
                a.put("resolvedDeliveredAt", iso(s.resolvedArrivedAt));
            }
            lines.add(line(s));
        }
        String reason;
        if (mine.isEmpty()) {
            reason = "no notification of " + expectedName;
        } else if (mine.size() > 1) {
            reason = expectedName + " arrived as " + mine.size() + " different alerts";
        } else if (mine.get(0).firing != 1 || mine.get(0).resolved != 1) {
            reason = expectedName + ": " + mine.get(0).firing + " firing and " + mine.get(0).resolved
                    + " resolved messages, expected 1 and 1";
        } else {
            reason = "";
        }
        boolean passed = reason.isEmpty();
        n.put("passed", passed);
        if (!passed) {
            n.put("reason", reason);
        }
        n.put("detectionTargetMs", DETECTION_TARGET_MILLIS);
        if (mine.size() == 1 && mine.get(0).firingArrivedAt >= 0 && firstCanaryMillis > 0) {
            long detection = mine.get(0).firingArrivedAt - firstCanaryMillis;
            n.put("detectionLatencyMs", detection);
            n.put("detectionTargetMet", detection <= DETECTION_TARGET_MILLIS);
            String resolve = "";
            if (mine.get(0).resolvedArrivedAt >= 0 && lastCanaryMillis > 0) {
                long r = mine.get(0).resolvedArrivedAt - lastCanaryMillis;
                n.put("resolveLatencyMs", r);
                resolve =
                        String.format(Locale.ROOT, "; resolve %.1f s (last canary to resolved notification)", r / 1e3);
            }
            lines.add(String.format(
                    Locale.ROOT,
                    "detection %.1f s first canary to firing notification (target <= %d s, one interval + 30 s: %s)%s",
                    detection / 1e3,
                    DETECTION_TARGET_MILLIS / 1000,
                    detection <= DETECTION_TARGET_MILLIS ? "met" : "MISSED",
                    resolve));
        }
        if (!passed) {
            lines.add("alerts    FAIL: " + reason);
        }
        return new Outcome(passed, n, lines);
    }

    /** Why the check did not run: the report says so, and the run is judged on its canary alone. */
    static Outcome notChecked(String reason) {
        ObjectNode n = JSON.createObjectNode();
        n.put("checked", false);
        n.put("reason", reason);
        return new Outcome(true, n, List.of("alerts    not checked: " + reason));
    }

    private static String line(Seen s) {
        String labels = new TreeMap<>(s.labels)
                .entrySet().stream()
                        .filter(e -> !e.getKey().equals("alertname"))
                        .map(e -> e.getKey() + "=\"" + e.getValue() + "\"")
                        .collect(Collectors.joining(","));
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "alert     %s{%s}", s.alertname, labels));
        b.append(" fired ").append(s.startsAt);
        if (s.firingArrivedAt >= 0) {
            b.append(" (delivered ").append(iso(s.firingArrivedAt)).append(')');
        }
        if (s.resolvedArrivedAt >= 0) {
            b.append(", resolved ")
                    .append(s.endsAt)
                    .append(" (delivered ")
                    .append(iso(s.resolvedArrivedAt))
                    .append(')');
        } else {
            b.append(", still firing");
        }
        b.append(String.format(Locale.ROOT, ": %d firing + %d resolved message(s)", s.firing, s.resolved));
        return b.toString();
    }

    private static String iso(long millis) {
        return Instant.ofEpochMilli(millis).truncatedTo(ChronoUnit.MILLIS).toString();
    }
}
