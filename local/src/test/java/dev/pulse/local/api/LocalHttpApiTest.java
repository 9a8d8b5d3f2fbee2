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
package dev.pulse.local.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.local.lambda.FunctionConfig;
import dev.pulse.local.lambda.LocalLambda;
import dev.pulse.local.lambda.TestHandlers;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Requests become payload format 2.0 events and answers map back as API Gateway maps them. */
class LocalHttpApiTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static LocalLambda lambda;
    private static LocalHttpApi api;

    @BeforeAll
    static void start() throws Exception {
        List<Path> cp = Arrays.stream(System.getProperty("java.class.path").split(":"))
                .map(Path::of)
                .toList();
        Path javaHome = Path.of(System.getProperty("java.home"));
        lambda = new LocalLambda(
                List.of(
                        new FunctionConfig(
                                "Echo",
                                "echo",
                                "arn:aws:lambda:us-east-1:000000000000:function:echo",
                                TestHandlers.HttpEcho.class.getName(),
                                256,
                                Duration.ofSeconds(5),
                                Map.of("AWS_REGION", "us-east-1"),
                                Path.of("target"),
                                cp,
                                javaHome),
                        new FunctionConfig(
                                "Fail",
                                "fail",
                                "arn:aws:lambda:us-east-1:000000000000:function:fail",
                                TestHandlers.Fail.class.getName() + "::handleRequest",
                                256,
                                Duration.ofSeconds(5),
                                Map.of("AWS_REGION", "us-east-1"),
                                Path.of("target"),
                                cp,
                                javaHome)),
                f -> line -> {},
                2);
        api = new LocalHttpApi(
                List.of(
                        new LocalHttpApi.Route("POST", "/query", "echo"),
                        new LocalHttpApi.Route("GET", "/series", "echo"),
                        new LocalHttpApi.Route("GET", "/broken", "fail"),
                        new LocalHttpApi.Route("GET", "/label/{name}/values", "echo")),
                lambda,
                true,
                0);
    }

    @AfterAll
    static void stop() {
        api.close();
        lambda.close();
    }

    private static HttpResponse<String> send(HttpRequest.Builder b, boolean signed) throws Exception {
        if (signed) {
            b.header(
                    "Authorization",
                    "AWS4-HMAC-SHA256 Credential=local/20261121/us-east-1/execute-api/aws4_request, "
                            + "SignedHeaders=host, Signature=00");
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static URI uri(String pathAndQuery) {
        return URI.create(api.endpoint() + pathAndQuery);
    }

    @Test
    void request_whenRouteHasPathParameter_matchesOneSegmentAndPassesItDecoded() throws Exception {
        HttpResponse<String> r = send(
                HttpRequest.newBuilder(uri("/label/a%2Fb%20c/values?match[]=x")).GET(), true);
        assertThat(r.statusCode()).isEqualTo(201);
        JsonNode e = JSON.readTree(r.body());
        assertThat(e.path("routeKey").asText()).isEqualTo("GET /label/{name}/values");
        assertThat(e.path("rawPath").asText()).isEqualTo("/label/a%2Fb%20c/values");
        assertThat(e.path("pathParameters").path("name").asText()).isEqualTo("a/b c");
        assertThat(send(HttpRequest.newBuilder(uri("/label//values")).GET(), true)
                        .statusCode())
                .isEqualTo(404);
        assertThat(send(HttpRequest.newBuilder(uri("/label/a/b/values")).GET(), true)
                        .statusCode())
                .isEqualTo(404);
        assertThat(send(HttpRequest.newBuilder(uri("/label/a/values")).GET(), false)
                        .statusCode())
                .isEqualTo(403);
    }

    @Test
    void request_whenRouted_becomesPayloadV2EventAndAnswerMapsBack() throws Exception {
        HttpResponse<String> r = send(
                HttpRequest.newBuilder(uri("/query?b=2&a=1&a=3"))
                        .header("Content-Type", "application/json")
                        .header("X-Custom", "v")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"q\":1}")),
                true);

        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("x-echo")).contains("1");
        JsonNode e = JSON.readTree(r.body());
        assertThat(e.path("version").asText()).isEqualTo("2.0");
        assertThat(e.path("routeKey").asText()).isEqualTo("POST /query");
        assertThat(e.path("rawPath").asText()).isEqualTo("/query");
        assertThat(e.path("rawQueryString").asText()).isEqualTo("b=2&a=1&a=3");
        // Repeated parameters are joined with commas, as API Gateway does.
        assertThat(e.path("queryStringParameters").path("a").asText()).isEqualTo("1,3");
        assertThat(e.path("headers").path("x-custom").asText()).isEqualTo("v");
        assertThat(e.path("body").asText()).isEqualTo("{\"q\":1}");
        assertThat(e.path("isBase64Encoded").asBoolean()).isFalse();
        assertThat(e.path("requestContext").path("http").path("method").asText())
                .isEqualTo("POST");
        assertThat(e.path("requestContext").path("stage").asText()).isEqualTo("$default");
        assertThat(e.path("requestContext").path("authorizer").path("iam").isObject())
                .isTrue();
    }

    @Test
    void request_whenJsonBodyHasAContentEncoding_passesItBase64Encoded() throws Exception {
        byte[] gzip = dev.pulse.testing.Gzip.gzip("{\"q\":1}");
        HttpResponse<String> r = send(
                HttpRequest.newBuilder(uri("/query"))
                        .header("Content-Type", "application/json")
                        .header("Content-Encoding", "gzip")
                        .POST(HttpRequest.BodyPublishers.ofByteArray(gzip)),
                true);

        JsonNode e = JSON.readTree(r.body());
        assertThat(e.path("isBase64Encoded").asBoolean()).isTrue();
        assertThat(java.util.Base64.getDecoder().decode(e.path("body").asText()))
                .isEqualTo(gzip);
    }

    @Test
    void request_whenUnsigned_getsApiGatewaysForbidden() throws Exception {
        HttpResponse<String> r =
                send(HttpRequest.newBuilder(uri("/series?prefix=")).GET(), false);

        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(r.body()).isEqualTo("{\"message\":\"Forbidden\"}");
    }

    @Test
    void request_whenNoRoute_getsNotFound() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/nope")).GET(), true);

        assertThat(r.statusCode()).isEqualTo(404);
        assertThat(r.body()).isEqualTo("{\"message\":\"Not Found\"}");
    }

    @Test
    void request_whenFunctionFails_getsInternalServerError() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/broken")).GET(), true);

        assertThat(r.statusCode()).isEqualTo(500);
        assertThat(r.body()).isEqualTo("{\"message\":\"Internal Server Error\"}");
    }
}
