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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.emulator.KinesisEmulator;
import dev.pulse.testing.Chromium;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.TestContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jsoup.nodes.Document;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;

/**
 * The load generator's HTML report written to S3 (moto on 127.0.0.1) when the request asks for it: the response
 * names the key, the object is the page (text/html), and the page draws its charts in headless Chromium.
 */
@ExtendWith(Emulators.class)
class HtmlReportToS3IT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static KinesisEmulator kinesis;
    private static KinesisAsyncClient client;
    private static S3Client s3;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        kinesis = KinesisEmulator.start();
        kinesis.createStream("report", 2);
        client = kinesis.client();
        s3 = S3Client.builder()
                .endpointOverride(Emulators.sqs().endpoint())
                .region(Region.US_EAST_1)
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(UrlConnectionHttpClient.create())
                .build();
        s3.createBucket(b -> b.bucket("pulse-replay"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (s3 != null) {
            s3.close();
        }
        if (client != null) {
            client.close();
        }
        if (kinesis != null) {
            kinesis.close();
        }
    }

    private static JsonNode invoke(LoadGenService.ReportStore reports, String event) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        InProcessLoadGen.handler(client, "report", reports)
                .handleRequest(
                        new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)),
                        out,
                        new TestContext("loadgen-req", 120_000, 2048));
        return JSON.readTree(out.toByteArray());
    }

    @Test
    void handleRequest_whenHtmlReportAsked_writesThePageToReportsPrefixAndAnswersItsKey() throws Exception {
        JsonNode report = invoke(
                new S3ReportStore(() -> s3, "pulse-replay"),
                "{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":200,\"rampUpSeconds\":1,"
                        + "\"durationSeconds\":4,\"workers\":2,\"runId\":\"s3-report-1\",\"htmlReport\":true}");

        assertThat(report.path("htmlReport").path("key").asText())
                .as(report.toString())
                .isEqualTo("reports/s3-report-1.html");
        assertThat(report.path("htmlReport").path("uri").asText())
                .isEqualTo("s3://pulse-replay/reports/s3-report-1.html");
        assertThat(report.path("targetPerSecond")).hasSize(4);
        assertThat(report.path("latencyPerSecondMs").path("p99")).hasSize(4);
        ResponseBytes<GetObjectResponse> object =
                s3.getObjectAsBytes(b -> b.bucket("pulse-replay").key("reports/s3-report-1.html"));
        assertThat(object.response().contentType()).isEqualTo("text/html; charset=utf-8");
        Path html = dir.resolve("from-s3.html");
        Files.write(html, object.asByteArray());

        Document dom = Chromium.dumpDom(html);

        assertThat(dom.select("h1").text()).isEqualTo("Pulse load run s3-report-1");
        assertThat(dom.select("figure[data-chart=rate] path.series").eachAttr("data-points"))
                .containsExactly("4", "4");
        assertThat(dom.select("figure[data-chart=put-latency] path.series")).hasSize(4);
    }

    @Test
    void handleRequest_whenHtmlReportAskedWithoutBucket_answersErrorNamingTheFieldAndSendsNothing() throws Exception {
        JsonNode report = invoke(
                null,
                "{\"source\":\"events/replay/sample.ndjson.gz\",\"mode\":\"rate\",\"rate\":200,"
                        + "\"durationSeconds\":2,\"runId\":\"s3-report-2\",\"htmlReport\":true}");

        assertThat(report.path("error").path("field").asText()).isEqualTo("htmlReport");
        assertThat(report.path("error").path("message").asText()).contains("ReplayBucket");
        assertThat(report.has("sent")).isFalse();
    }
}
