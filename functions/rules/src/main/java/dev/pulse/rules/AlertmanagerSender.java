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
import dev.pulse.retry.Deadline;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Sends alerts to an Alertmanager's {@code /api/v2/alerts} as Prometheus 2.42 does (rules/alerting.go
 * {@code sendAlerts}, rules/manager.go {@code SendAlerts}, notifier/notifier.go): a JSON array of postable alerts,
 * each with {@code labels} (the alert's, external labels added where it has none of that name), {@code annotations},
 * {@code startsAt} (when it fired), {@code endsAt} and {@code generatorURL}, at most 64 a request. A firing alert is
 * sent at every evaluation of its rule with {@code endsAt} = evaluation time + 4 × max(resend delay, group interval),
 * so Alertmanager resolves it by itself if the evaluator stops; a resolved alert is sent with {@code endsAt} = when it
 * resolved, at every evaluation while Pulse keeps it (15 minutes). Pending alerts are not sent.
 *
 * <p>The JDK's {@link HttpClient}, not the SDK's: the request is a plain JSON POST to a server that is not an AWS
 * service (no signing, no SDK marshalling), and the JDK's client has what it needs (a connect timeout, a per-request
 * timeout) without a dependency. A send failure (refused, timed out, a non-2xx answer) is reported to the caller,
 * which counts and logs it: the alert state is already stored, and the next evaluation sends again.
 */
public final class AlertmanagerSender {

    /** Prometheus' {@code --rules.alert.resend-delay} default. */
    public static final long RESEND_DELAY_MILLIS = 60_000;
    /** Prometheus' notifier posts at most this many alerts a request (notifier.maxBatchSize). */
    static final int MAX_BATCH = 64;
    /** Prometheus' default Alertmanager timeout ({@code alertmanager_config.timeout}). */
    static final Duration TIMEOUT = Duration.ofSeconds(10);
    /** Below this much time left in the run, a request is not started. */
    static final long MIN_REQUEST_MILLIS = 500;
    /** An error answer's body is read this far (into the log), no further. */
    private static final int MAX_ERROR_BODY = 512;

    // Go's strfmt.DateTime, as Prometheus' notifier marshals the times: RFC 3339 with milliseconds.
    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSXXX").withZone(ZoneOffset.UTC);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http;
    private final URI endpoint;
    private final AlertmanagerAuth auth;
    private final Map<String, String> externalLabels;
    private final String externalUrl;

    /**
     * @param baseUrl Alertmanager's URL (with its path prefix, if any); alerts go to {@code <baseUrl>/api/v2/alerts}
     */
    public AlertmanagerSender(
            HttpClient http,
            String baseUrl,
            AlertmanagerAuth auth,
            Map<String, String> externalLabels,
            String externalUrl) {
        this.http = http;
        this.endpoint = URI.create(baseUrl.replaceAll("/+$", "") + "/api/v2/alerts");
        this.auth = auth;
        this.externalLabels = Map.copyOf(externalLabels);
        this.externalUrl = externalUrl;
    }

    /** The client the deployed sender uses: a bounded connect timeout, no redirects (a POST is not replayed). */
    public static HttpClient httpClient() {
        return HttpClient.newBuilder()
                .connectTimeout(Duration.ofSeconds(3))
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
    }

    public URI endpoint() {
        return endpoint;
    }

    /**
     * The postable alerts of {@code rule} after its evaluation at {@code evaluatedAt} in a group of interval
     * {@code intervalMillis}: every firing alert and every resolved one still kept; pending ones are not sent.
     */
    public List<ObjectNode> alerts(AlertingRule rule, long evaluatedAt, long intervalMillis, Collection<Alert> alerts) {
        long validUntil = evaluatedAt + 4 * Math.max(RESEND_DELAY_MILLIS, intervalMillis);
        List<Alert> sorted = new ArrayList<>(alerts);
        sorted.sort(java.util.Comparator.comparing(Alert::fingerprint));
        List<ObjectNode> out = new ArrayList<>();
        for (Alert a : sorted) {
            boolean firing = a.state() == AlertState.FIRING;
            boolean resolved = a.state() == AlertState.INACTIVE && a.resolvedAt() != 0 && a.firedAt() != 0;
            if (!firing && !resolved) {
                continue;
            }
            NavigableMap<String, String> labels = new TreeMap<>(a.labels());
            externalLabels.forEach(labels::putIfAbsent);
            ObjectNode n = JSON.createObjectNode();
            n.set("labels", JSON.valueToTree(labels));
            n.set("annotations", JSON.valueToTree(new TreeMap<>(a.annotations())));
            n.put("startsAt", TIME.format(Instant.ofEpochMilli(a.firedAt())));
            n.put("endsAt", TIME.format(Instant.ofEpochMilli(firing ? validUntil : a.resolvedAt())));
            n.put("generatorURL", WebhookMessage.generatorUrl(externalUrl, rule.expr()));
            out.add(n);
        }
        return out;
    }

    /** What one {@link #send} did: alerts Alertmanager accepted, requests that failed and the first failure's reason. */
    public record Result(int sent, int failedRequests, int failedAlerts, String firstError) {}

    /**
     * Posts {@code alerts} in requests of at most 64, each bounded by 10 s and the time left in {@code deadline}. Every
     * batch is tried; a failed one is reported, not retried (the next evaluation sends its alerts again).
     */
    public Result send(List<ObjectNode> alerts, Deadline deadline) throws InterruptedException {
        int sent = 0;
        int failedRequests = 0;
        int failedAlerts = 0;
        String firstError = null;
        for (int i = 0; i < alerts.size(); i += MAX_BATCH) {
            List<ObjectNode> batch = alerts.subList(i, Math.min(alerts.size(), i + MAX_BATCH));
            String error = post(batch, deadline);
            if (error == null) {
                sent += batch.size();
            } else {
                failedRequests++;
                failedAlerts += batch.size();
                if (firstError == null) {
                    firstError = error;
                }
            }
        }
        return new Result(sent, failedRequests, failedAlerts, firstError);
    }

    /** One request; null when Alertmanager accepted it, else the reason. */
    private String post(List<ObjectNode> batch, Deadline deadline) throws InterruptedException {
        long left = deadline.remainingMillis();
        if (left < MIN_REQUEST_MILLIS) {
            return "not sent: " + left + " ms left in the run";
        }
        ArrayNode body = JSON.createArrayNode();
        batch.forEach(body::add);
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint)
                .timeout(Duration.ofMillis(Math.min(TIMEOUT.toMillis(), left)))
                .header("Content-Type", "application/json")
                .header("User-Agent", "Pulse")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString(), StandardCharsets.UTF_8));
        try {
            String authorization = auth.header();
            if (authorization != null) {
                request.header("Authorization", authorization);
            }
        } catch (RuntimeException e) {
            return "the Alertmanager credentials could not be read: " + e.getMessage();
        }
        int status;
        String text;
        try {
            HttpResponse<InputStream> response = http.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            status = response.statusCode();
            // Only the start of the answer is read (into the log): a server answering without end costs nothing.
            try (InputStream in = response.body()) {
                text = status / 100 == 2 ? "" : new String(in.readNBytes(MAX_ERROR_BODY), StandardCharsets.UTF_8);
            }
        } catch (HttpTimeoutException e) {
            return "POST " + endpoint + ": timed out";
        } catch (IOException e) {
            return "POST " + endpoint + ": " + e;
        }
        if (status / 100 == 2) {
            return null;
        }
        if (status == 401 || status == 403) {
            auth.refused();
        }
        return "POST " + endpoint + ": HTTP " + status + (text.isBlank() ? "" : ": " + text.strip());
    }
}
