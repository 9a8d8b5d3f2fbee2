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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;

/**
 * Reads a run's canary series through the deployed query API ({@code POST /query}), signed with SigV4 for
 * {@code execute-api} like any other IAM-authorized caller: one bucket over the whole run, count and sum.
 */
public final class ApiCanaryReader implements CanaryVerifier.Reader {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final URI apiUrl;
    private final String region;
    private final AwsCredentialsProvider credentials;
    private final SdkHttpClient http;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    public ApiCanaryReader(URI apiUrl, String region, AwsCredentialsProvider credentials, SdkHttpClient http) {
        this.apiUrl = apiUrl;
        this.region = region;
        this.credentials = credentials;
        this.http = http;
    }

    @Override
    public CanaryVerifier.Observed read(String runId, long startMillis, long endMillis) {
        long start = Math.floorDiv(startMillis, 60_000L) * 60_000L;
        long periodSeconds = Math.max(60, (endMillis - start + 59_999) / 60_000 * 60);
        ObjectNode body = JSON.createObjectNode();
        ObjectNode series = body.putArray("series").addObject();
        series.put("name", CanaryVerifier.SERIES_NAME);
        series.putObject("dims").put("run", runId);
        body.put("start", start);
        body.put("end", endMillis);
        body.put("period", periodSeconds);
        body.putArray("stats").add("count").add("sum");
        String payload = body.toString();
        SdkHttpFullRequest request = SdkHttpFullRequest.builder()
                .uri(apiUrl.resolve("/query"))
                .method(SdkHttpMethod.POST)
                .putHeader("Content-Type", "application/json")
                .build();
        SignedRequest signed =
                signer.sign(r -> r.identity(credentials.resolveIdentity().join())
                        .request(request)
                        .payload(ContentStreamProvider.fromUtf8String(payload))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, region));
        try {
            HttpExecuteResponse resp = http.prepareRequest(HttpExecuteRequest.builder()
                            .request(signed.request())
                            .contentStreamProvider(signed.payload().orElse(null))
                            .build())
                    .call();
            JsonNode json;
            try (InputStream in = resp.responseBody().orElseThrow(() -> new IOException("empty response"))) {
                json = JSON.readTree(in);
            }
            if (resp.httpResponse().statusCode() != 200) {
                throw new IllegalStateException(
                        "query API answered " + resp.httpResponse().statusCode() + ": " + json);
            }
            long count = 0;
            double sum = 0;
            JsonNode values = json.path("series").path(0).path("values");
            for (int i = 0; i < values.path("count").size(); i++) {
                if (!values.get("count").get(i).isNull()) {
                    count += values.get("count").get(i).asLong();
                    sum += values.get("sum").get(i).asDouble();
                }
            }
            return new CanaryVerifier.Observed(count, sum);
        } catch (IOException e) {
            throw new UncheckedIOException("query API unreachable at " + apiUrl, e);
        }
    }
}
