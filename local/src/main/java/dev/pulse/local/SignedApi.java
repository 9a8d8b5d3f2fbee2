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

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpFullRequest;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;

/** Calls the local HTTP API the way an IAM-authorized client calls the deployed one: SigV4 for execute-api. */
final class SignedApi implements AutoCloseable {

    /** Status and body of one call. */
    record Response(int status, String body) {}

    private final URI base;
    private final SdkHttpClient http;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();

    SignedApi(URI base) {
        this.base = base;
        this.http = UrlConnectionHttpClient.create();
    }

    /** With a read timeout other than the client's 30 s: a function's cold start on a busy machine can take longer. */
    SignedApi(URI base, java.time.Duration readTimeout) {
        this.base = base;
        this.http = UrlConnectionHttpClient.builder().socketTimeout(readTimeout).build();
    }

    /** Status, Content-Type (null when absent) and body of one call, as bytes. */
    record Reply(int status, String contentType, byte[] body) {}

    Response post(String path, String json) throws IOException {
        return text(send(SdkHttpMethod.POST, path, "application/json", json.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code GET path} ({@code path} with its query string, encoded). */
    Response get(String path) throws IOException {
        return text(send(SdkHttpMethod.GET, path, Map.of(), null));
    }

    /** Any request, signed: {@code pathAndQuery} encoded, {@code contentType} and {@code body} may be null. */
    Reply send(SdkHttpMethod method, String pathAndQuery, String contentType, byte[] body) throws IOException {
        return send(method, pathAndQuery, contentType == null ? Map.of() : Map.of("Content-Type", contentType), body);
    }

    /** Any request with these headers (Content-Type, Content-Encoding, ...), signed with them. */
    Reply send(SdkHttpMethod method, String pathAndQuery, Map<String, String> headers, byte[] body) throws IOException {
        SdkHttpFullRequest.Builder request =
                SdkHttpFullRequest.builder().uri(base.resolve(pathAndQuery)).method(method);
        headers.forEach(request::putHeader);
        SignedRequest signed = signer.sign(
                r -> r.identity(LocalDeployment.CREDENTIALS.resolveIdentity().join())
                        .request(request.build())
                        .payload(body == null || body.length == 0 ? null : ContentStreamProvider.fromByteArray(body))
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "execute-api")
                        .putProperty(AwsV4HttpSigner.REGION_NAME, LocalDeployment.REGION));
        HttpExecuteResponse resp = http.prepareRequest(HttpExecuteRequest.builder()
                        .request(signed.request())
                        .contentStreamProvider(signed.payload().orElse(null))
                        .build())
                .call();
        byte[] out = new byte[0];
        if (resp.responseBody().isPresent()) {
            try (InputStream in = resp.responseBody().get()) {
                out = in.readAllBytes();
            }
        }
        return new Reply(
                resp.httpResponse().statusCode(),
                resp.httpResponse().firstMatchingHeader("Content-Type").orElse(null),
                out);
    }

    private static Response text(Reply reply) {
        return new Response(reply.status(), new String(reply.body(), StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        http.close();
    }
}
