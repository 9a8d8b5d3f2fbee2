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

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The alert topic's local subscriber, over real HTTP on 127.0.0.1: what SNS delivers, and what it refuses. */
class AlertSubscriberTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Instant NOW = Instant.parse("2026-11-29T08:00:30Z");

    private AlertSubscriber subscriber;
    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() throws Exception {
        subscriber = AlertSubscriber.start(Clock.fixed(NOW, ZoneOffset.UTC));
    }

    @AfterEach
    void stop() {
        subscriber.close();
        http.close();
    }

    /** Alertmanager's webhook message version 4 with one alert, as WebhookMessage builds it. */
    static String webhook(String status, String run) {
        ObjectNode m = JSON.createObjectNode();
        m.put("version", "4");
        m.put("status", status);
        m.put("receiver", "pulse");
        ObjectNode a = m.putArray("alerts").addObject();
        a.put("status", status);
        a.putObject("labels").put("alertname", "LoadgenRunning").put("run", run).put("severity", "info");
        a.putObject("annotations").put("summary", "load run " + run + " is writing its canary");
        a.put("startsAt", "2026-11-29T08:00:00Z");
        a.put("endsAt", status.equals("firing") ? "0001-01-01T00:00:00Z" : "2026-11-29T08:02:00Z");
        a.put("fingerprint", "0123456789abcdef");
        return m.toString();
    }

    private HttpResponse<String> post(String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(subscriber.endpoint())
                        .header("Content-Type", "text/plain; charset=UTF-8")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void post_whenSnsEnvelope_recordsEachAlertWithItsArrival() throws Exception {
        ObjectNode envelope = JSON.createObjectNode();
        envelope.put("Type", "Notification");
        envelope.put("MessageId", "m-1");
        envelope.put("TopicArn", "arn:aws:sns:us-east-1:123456789012:pulse-local-AlertTopic");
        envelope.put("Message", webhook("firing", "local-1"));

        HttpResponse<String> r = post(envelope.toString());

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(subscriber.deliveries()).singleElement().satisfies(d -> {
            assertThat(d.alertname()).isEqualTo("LoadgenRunning");
            assertThat(d.status()).isEqualTo("firing");
            assertThat(d.labels()).containsEntry("run", "local-1");
            assertThat(d.fingerprint()).isEqualTo("0123456789abcdef");
            assertThat(d.startsAt()).isEqualTo("2026-11-29T08:00:00Z");
            assertThat(d.receivedAtMillis()).isEqualTo(NOW.toEpochMilli());
        });
        assertThat(subscriber.messages()).isEqualTo(1);
    }

    @Test
    void post_whenRawMessageDelivery_recordsTheMessage() throws Exception {
        HttpResponse<String> r = post(webhook("resolved", "local-2"));

        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(subscriber.deliveries()).singleElement().satisfies(d -> {
            assertThat(d.status()).isEqualTo("resolved");
            assertThat(d.endsAt()).isEqualTo("2026-11-29T08:02:00Z");
        });
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "not json",
                "[1,2]",
                "{\"Type\":\"Notification\",\"Message\":{\"version\":\"4\"}}",
                "{\"Type\":\"Notification\",\"Message\":\"{\"}",
                "{\"Type\":\"UnsubscribeConfirmation\"}",
                "{\"version\":\"3\",\"alerts\":[]}",
                "{\"version\":\"4\",\"alerts\":{}}",
                "{\"version\":\"4\",\"alerts\":[{\"status\":\"pending\",\"labels\":{}}]}",
                "{\"version\":\"4\",\"alerts\":[{\"status\":\"firing\",\"labels\":[]}]}",
                "{\"Type\":\"SubscriptionConfirmation\",\"SubscribeURL\":\"http://example.com/confirm\"}",
                "{\"Type\":\"SubscriptionConfirmation\",\"SubscribeURL\":\"file:///etc/passwd\"}"
            })
    void post_whenNotAWebhookMessage_answers400NamingTheProblemAndRecordsNothing(String body) throws Exception {
        HttpResponse<String> r = post(body);

        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(r.body()).isNotEmpty();
        assertThat(subscriber.deliveries()).isEmpty();
        assertThat(subscriber.rejected()).isEqualTo(1);
        assertThat(subscriber.confirmations()).isZero();
    }

    @Test
    void post_whenBodyOverTheBound_answers413() throws Exception {
        String big = "{\"version\":\"4\",\"pad\":\"" + "x".repeat(AlertSubscriber.MAX_BODY_BYTES) + "\",\"alerts\":[]}";

        HttpResponse<String> r = post(big);

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(subscriber.deliveries()).isEmpty();
        assertThat(subscriber.rejected()).isEqualTo(1);
    }

    @Test
    void post_whenSnsDeliversTheSameMessageAgain_recordsItOnce() throws Exception {
        ObjectNode envelope = JSON.createObjectNode();
        envelope.put("Type", "Notification");
        envelope.put("MessageId", "m-redelivered");
        envelope.put("Message", webhook("firing", "local-3"));

        HttpResponse<String> first = post(envelope.toString());
        HttpResponse<String> again = post(envelope.toString());

        // SNS delivers at least once: a redelivery (same MessageId) is not a second notification from Pulse.
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(subscriber.deliveries()).hasSize(1);
        assertThat(subscriber.messages()).isEqualTo(1);
        assertThat(subscriber.duplicates()).isEqualTo(1);
    }

    @Test
    void post_whenTheEnvelopeEscapesEveryNonAsciiCharacterOfAFullSnsMessage_recordsIt() throws Exception {
        // moto posts the envelope with Python's json (ensure_ascii): 'é', two bytes in the message, is six in the
        // envelope, so a message under SNS's 256 KiB can take three times that.
        ObjectNode m = (ObjectNode) JSON.readTree(webhook("firing", "local-4"));
        ((ObjectNode) m.get("alerts").get(0).get("annotations")).put("description", "é".repeat(125_000));
        String message = m.toString();
        assertThat(message.getBytes(StandardCharsets.UTF_8).length).isLessThan(256 * 1024);
        ObjectNode envelope = JSON.createObjectNode();
        envelope.put("Type", "Notification");
        envelope.put("MessageId", "m-ascii");
        envelope.put("Message", message);
        String escaped = JSON.writer()
                .with(com.fasterxml.jackson.core.json.JsonWriteFeature.ESCAPE_NON_ASCII)
                .writeValueAsString(envelope);

        HttpResponse<String> r = post(escaped);

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(subscriber.deliveries())
                .singleElement()
                .satisfies(d -> assertThat(d.labels()).containsEntry("run", "local-4"));
    }

    @Test
    void get_whenNotPost_answers405() throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(subscriber.endpoint()).GET().build(), HttpResponse.BodyHandlers.ofString());

        assertThat(r.statusCode()).isEqualTo(405);
    }

    @Test
    void endpoint_whenStarted_isOnTheLoopbackAddress() {
        assertThat(subscriber.endpoint().getHost()).isEqualTo("127.0.0.1");
        assertThat(subscriber.endpoint().toString().getBytes(StandardCharsets.UTF_8))
                .isNotEmpty();
    }
}
