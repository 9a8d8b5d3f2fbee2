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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.sun.net.httpserver.HttpServer;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/**
 * The canary read back over HTTP, SigV4-signed for execute-api, from a stand-in for API Gateway on
 * 127.0.0.1 that hands the request to the real query handler.
 */
@ExtendWith(Emulators.class)
class ApiCanaryReaderIT {

    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");

    @Test
    void verify_whenReadThroughTheSignedApi_findsTheLoss() throws Exception {
        try (Pipeline p = new Pipeline("pulse-apicanary", NOW, Duration.ofDays(14))) {
            List<Long> sendTimes = new ArrayList<>();
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            for (int k = 0; k < 10; k++) {
                long sent = NOW.toEpochMilli() - 60_000 + k * 1000L;
                sendTimes.add(sent);
                ReplayRecord c = CanaryVerifier.record("api-run", k, sent);
                if (k != 4) {
                    records.add(KinesisRecords.record("shardId-000000000000", k, c.partitionKey(), c.data(), sent));
                }
            }
            p.ingest(records);
            var handler = p.queryHandler();
            AtomicReference<String> authorization = new AtomicReference<>();
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/query", exchange -> {
                authorization.set(exchange.getRequestHeaders().getFirst("Authorization"));
                String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
                APIGatewayV2HTTPResponse resp = handler.handleRequest(
                        APIGatewayV2HTTPEvent.builder()
                                .withRawPath("/query")
                                .withBody(body)
                                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                                .withMethod("POST")
                                                .build())
                                        .build())
                                .build(),
                        new dev.pulse.testing.TestContext("api", 30_000, 1024));
                byte[] out = resp.getBody().getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(resp.getStatusCode(), out.length);
                exchange.getResponseBody().write(out);
                exchange.close();
            });
            server.start();
            try (UrlConnectionHttpClient http = (UrlConnectionHttpClient) UrlConnectionHttpClient.create()) {
                ApiCanaryReader reader = new ApiCanaryReader(
                        URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                        "us-east-1",
                        StaticCredentialsProvider.create(AwsBasicCredentials.create("AKIDTEST", "secret")),
                        http);

                CanaryVerifier.Verdict v =
                        CanaryVerifier.verify("api-run", sendTimes, reader, Deadline.inMillis(1_500), 200);

                assertThat(v.lost()).isEqualTo(1);
                assertThat(v.observed()).isEqualTo(9);
                assertThat(authorization.get())
                        .startsWith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
                        .contains("/us-east-1/execute-api/aws4_request");
            } finally {
                server.stop(0);
            }
        }
    }
}
