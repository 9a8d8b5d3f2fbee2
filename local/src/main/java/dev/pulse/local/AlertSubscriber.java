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

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.local.internal.LoopbackHttp;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The local stack's subscriber to the alert topic: an HTTP endpoint on 127.0.0.1 that SNS delivers the rules
 * evaluator's notifications to (Alertmanager's webhook message, version 4), as a team's webhook receiver would get
 * them. It takes SNS's HTTP envelope ({@code Type: Notification} with the message in {@code Message}, what moto
 * posts), the raw message (a subscription with {@code RawMessageDelivery}), and confirms a subscription on the
 * loopback address ({@code SubscriptionConfirmation}, what LocalStack sends first). Every alert of every message
 * is kept with the time it arrived, for the run's report.
 */
public final class AlertSubscriber implements AutoCloseable {

    /**
     * SNS messages are at most 256 KiB; in the envelope the message is escaped again: a quote or backslash takes two
     * bytes, and moto writes the envelope with Python's json, which escapes every non-ASCII character as
     * {@code \\uXXXX}: a two-byte character takes six. Three times the message plus the envelope's fields is the most
     * a delivery can be. Larger bodies are refused while read.
     */
    static final int MAX_BODY_BYTES = 3 * 256 * 1024 + 16 * 1024;
    /** More alerts than a run can produce: a flood stops being recorded (counted as rejected) instead of growing. */
    static final int MAX_DELIVERIES = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * One alert of one delivered message.
     *
     * @param receivedAtMillis when the message arrived here (epoch ms)
     * @param status           the alert's status, {@code firing} or {@code resolved}
     * @param labels           its labels ({@code alertname} included)
     * @param startsAt         when it fired, as the message says (RFC 3339)
     * @param endsAt           when it resolved, or Go's zero time while it fires
     */
    public record Delivery(
            long receivedAtMillis,
            String status,
            String fingerprint,
            Map<String, String> labels,
            String startsAt,
            String endsAt) {

        public Delivery {
            labels = Map.copyOf(labels);
        }

        public String alertname() {
            return labels.getOrDefault("alertname", "");
        }
    }

    private final HttpServer server;
    private final ExecutorService executor;
    private final Clock clock;
    private final List<Delivery> deliveries = new ArrayList<>();
    private final AtomicLong messages = new AtomicLong();
    private final AtomicLong rejected = new AtomicLong();
    private final AtomicLong confirmations = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    /** The SNS MessageIds taken, so a redelivery is recognised; bounded as the deliveries are. */
    private final java.util.Set<String> messageIds = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private final HttpClient confirmClient =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    private AlertSubscriber(Clock clock) throws IOException {
        this.clock = clock;
        this.executor = Executors.newVirtualThreadPerTaskExecutor();
        this.server = LoopbackHttp.start(0, 16, this::handle, executor);
    }

    /** Starts the endpoint on a free port of 127.0.0.1. */
    public static AlertSubscriber start(Clock clock) throws IOException {
        return new AlertSubscriber(clock);
    }

    /** The URL to subscribe to the topic (protocol {@code http}). */
    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/alerts");
    }

    /** Every alert received so far, in arrival order. */
    public List<Delivery> deliveries() {
        synchronized (deliveries) {
            return List.copyOf(deliveries);
        }
    }

    /** Notification messages accepted. */
    public long messages() {
        return messages.get();
    }

    /** Requests refused: too large, not JSON, not a webhook message, or past {@link #MAX_DELIVERIES}. */
    public long rejected() {
        return rejected.get();
    }

    /** Notifications SNS delivered again (a MessageId already taken): answered 200, not recorded twice. */
    public long duplicates() {
        return duplicates.get();
    }

    /** Subscription confirmations followed. */
    public long confirmations() {
        return confirmations.get();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("POST")) {
                reply(ex, 405, "POST only");
                return;
            }
            byte[] body = readBounded(ex.getRequestBody());
            if (body == null) {
                rejected.incrementAndGet();
                reply(ex, 413, "body over " + MAX_BODY_BYTES + " bytes");
                return;
            }
            String problem = accept(body, clock.millis());
            if (problem != null) {
                rejected.incrementAndGet();
                reply(ex, 400, problem);
                return;
            }
            reply(ex, 200, "");
        }
    }

    /**
     * Takes one delivery's body; answers null when taken, else what is wrong with it (the HTTP 400's text).
     * Package-private for the tests.
     */
    String accept(byte[] body, long receivedAtMillis) {
        JsonNode n;
        try {
            n = JSON.readTree(body);
        } catch (JsonProcessingException e) {
            return "body is not JSON: " + e.getOriginalMessage();
        } catch (IOException e) {
            return "body could not be read: " + e.getMessage();
        }
        if (n == null || !n.isObject()) {
            return "body is not a JSON object";
        }
        String type = n.path("Type").asText("");
        if (type.equals("SubscriptionConfirmation")) {
            return confirm(n.path("SubscribeURL").asText(""));
        }
        JsonNode message = n;
        String messageId = null;
        if (type.equals("Notification")) {
            JsonNode inner = n.path("Message");
            if (!inner.isTextual()) {
                return "field Message: a notification's message must be a string";
            }
            try {
                message = JSON.readTree(inner.asText());
            } catch (JsonProcessingException e) {
                return "field Message: not JSON: " + e.getOriginalMessage();
            }
            messageId = n.path("MessageId").isTextual() ? n.get("MessageId").asText() : null;
        } else if (!type.isEmpty()) {
            return "field Type: " + type + " is not a notification";
        }
        // SNS delivers at least once: the same MessageId again is a redelivery, not another notification.
        if (messageId != null) {
            if (messageIds.size() >= MAX_DELIVERIES) {
                return "more than " + MAX_DELIVERIES + " messages received: no more are kept";
            }
            if (!messageIds.add(messageId)) {
                duplicates.incrementAndGet();
                return null;
            }
        }
        String problem = webhook(message, receivedAtMillis);
        if (problem != null && messageId != null) {
            messageIds.remove(messageId);
        }
        return problem;
    }

    private String webhook(JsonNode m, long receivedAtMillis) {
        if (m == null || !m.path("version").asText("").equals("4")) {
            return "field version: not Alertmanager's webhook message version 4";
        }
        JsonNode alerts = m.path("alerts");
        if (!alerts.isArray()) {
            return "field alerts: must be an array";
        }
        List<Delivery> taken = new ArrayList<>();
        for (JsonNode a : alerts) {
            String status = a.path("status").asText("");
            if (!status.equals("firing") && !status.equals("resolved")) {
                return "field alerts[].status: must be firing or resolved, got " + abbreviate(status);
            }
            JsonNode labels = a.path("labels");
            if (!labels.isObject()) {
                return "field alerts[].labels: must be an object";
            }
            Map<String, String> l = new LinkedHashMap<>();
            labels.properties().forEach(e -> l.put(e.getKey(), e.getValue().asText()));
            taken.add(new Delivery(
                    receivedAtMillis,
                    status,
                    a.path("fingerprint").asText(""),
                    l,
                    a.path("startsAt").asText(""),
                    a.path("endsAt").asText("")));
        }
        synchronized (deliveries) {
            if (deliveries.size() + taken.size() > MAX_DELIVERIES) {
                return "more than " + MAX_DELIVERIES + " alerts received: no more are kept";
            }
            deliveries.addAll(taken);
        }
        messages.incrementAndGet();
        return null;
    }

    /**
     * Follows a subscription's confirmation link, only to the loopback address: the emulator's own (the started
     * LocalStack is told LOCALSTACK_HOST=127.0.0.1:port, so its links name it), never a URL a body could point anywhere
     * nor a name that needs a DNS lookup.
     */
    private String confirm(String url) {
        URI uri;
        try {
            uri = new URI(url);
        } catch (java.net.URISyntaxException e) {
            return "field SubscribeURL: not a URL";
        }
        String host = uri.getHost();
        if (!"http".equals(uri.getScheme())
                || host == null
                || !(host.equals("127.0.0.1") || host.equals("localhost"))) {
            return "field SubscribeURL: only a loopback http URL is followed, got " + abbreviate(url);
        }
        try {
            HttpResponse<Void> r = confirmClient.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(5))
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            if (r.statusCode() / 100 != 2) {
                return "confirming the subscription answered HTTP " + r.statusCode();
            }
        } catch (IOException e) {
            return "confirming the subscription failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while confirming the subscription";
        }
        confirmations.incrementAndGet();
        return null;
    }

    /** The body, or null once it passes {@link #MAX_BODY_BYTES} (read no further). */
    private static byte[] readBounded(InputStream in) throws IOException {
        byte[] b = in.readNBytes(MAX_BODY_BYTES + 1);
        return b.length > MAX_BODY_BYTES ? null : b;
    }

    private static void reply(HttpExchange ex, int status, String text) throws IOException {
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        LoopbackHttp.write(ex, status, text.getBytes(StandardCharsets.UTF_8));
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "...";
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
        confirmClient.close();
    }
}
