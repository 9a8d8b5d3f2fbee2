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
package dev.pulse.snapstart;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.reactivestreams.Subscriber;
import org.reactivestreams.Subscription;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.async.AsyncRequestBody;
import software.amazon.awssdk.http.AbortableInputStream;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.async.AsyncExecuteRequest;
import software.amazon.awssdk.http.async.SdkAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * SDK clients for priming only: the real SDK pipeline (request marshalling, SigV4 signing, interceptors, response
 * unmarshalling, the async future chain) over an HTTP client that never opens a socket and answers each DynamoDB
 * operation with an empty success in memory. Static throwaway credentials, so the default provider chain is never
 * consulted and nothing is cached; an endpoint under {@code .invalid}, which no resolver answers, in case anything
 * ever bypassed the in-memory client. Close them after priming.
 */
public final class PrimingClients implements AutoCloseable {

    private static final StaticCredentialsProvider CREDENTIALS =
            StaticCredentialsProvider.create(AwsBasicCredentials.create("PRIMINGONLY", "priming-only-never-sent"));
    private static final URI NOWHERE = URI.create("http://priming.invalid");
    /** An empty success per DynamoDB operation (X-Amz-Target suffix); {} for the rest. */
    private static final Map<String, String> DYNAMODB_ANSWERS = Map.of(
            "BatchWriteItem", "{\"UnprocessedItems\":{}}",
            "BatchGetItem", "{\"Responses\":{},\"UnprocessedKeys\":{}}",
            "Query", "{\"Items\":[],\"Count\":0,\"ScannedCount\":0}",
            "GetItem", "{}",
            "PutItem", "{}",
            "UpdateItem", "{}");

    private final Map<String, AtomicLong> requests = new ConcurrentHashMap<>();
    private final DynamoDbAsyncClient dynamoDb;
    private final SqsClient sqs;

    public PrimingClients() {
        Region region = region();
        this.dynamoDb = DynamoDbAsyncClient.builder()
                .region(region)
                .credentialsProvider(CREDENTIALS)
                .endpointOverride(NOWHERE)
                .httpClient(new InMemoryAsync())
                .build();
        this.sqs = SqsClient.builder()
                .region(region)
                .credentialsProvider(CREDENTIALS)
                .endpointOverride(NOWHERE)
                .httpClient(new InMemorySync())
                .build();
    }

    private static Region region() {
        String r = System.getenv("AWS_REGION");
        return r == null || r.isBlank() ? Region.US_EAST_1 : Region.of(r);
    }

    public DynamoDbAsyncClient dynamoDb() {
        return dynamoDb;
    }

    public SqsClient sqs() {
        return sqs;
    }

    /** Requests answered so far, by operation (the X-Amz-Target's suffix). */
    public Map<String, Long> requests() {
        Map<String, Long> out = new java.util.TreeMap<>();
        requests.forEach((k, v) -> out.put(k, v.get()));
        return out;
    }

    private String answer(SdkHttpRequest request) {
        String target = request.firstMatchingHeader("X-Amz-Target").orElse("");
        String operation = target.substring(target.indexOf('.') + 1);
        requests.computeIfAbsent(operation, k -> new AtomicLong()).incrementAndGet();
        return target.startsWith("DynamoDB_") ? DYNAMODB_ANSWERS.getOrDefault(operation, "{}") : "{}";
    }

    private static SdkHttpResponse ok(int length) {
        return SdkHttpResponse.builder()
                .statusCode(200)
                .putHeader("Content-Type", "application/x-amz-json-1.0")
                .putHeader("Content-Length", Integer.toString(length))
                .putHeader("x-amzn-RequestId", PrimingContext.REQUEST_ID)
                .build();
    }

    /**
     * The AWS CRT HTTP client's request path (the production async client's), which the in-memory client skips: one
     * GetItem through a throwaway CRT client to a loopback port nothing listens on, refused at once. It never leaves
     * this machine; the client and its connection manager are closed before this returns.
     *
     * @return whether the request failed as it must (refused); false means something answered and nothing is primed
     */
    public static boolean primeCrtHttpClient() throws java.io.IOException {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        try (DynamoDbAsyncClient crt = DynamoDbAsyncClient.builder()
                .region(region())
                .credentialsProvider(CREDENTIALS)
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .httpClientBuilder(software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient.builder()
                        .connectionTimeout(java.time.Duration.ofSeconds(1)))
                .overrideConfiguration(
                        o -> o.retryStrategy(software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry()))
                .build()) {
            crt.getItem(b -> b.tableName("priming")
                            .key(Map.of(
                                    "pk",
                                    software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS("priming"))))
                    .join();
            return false;
        } catch (java.util.concurrent.CompletionException e) {
            return true;
        }
    }

    @Override
    public void close() {
        dynamoDb.close();
        sqs.close();
    }

    /** Reads the request body (as a real client would send it), then answers. */
    private final class InMemoryAsync implements SdkAsyncHttpClient {
        @Override
        public CompletableFuture<Void> execute(AsyncExecuteRequest request) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            request.requestContentPublisher().subscribe(new Subscriber<ByteBuffer>() {
                @Override
                public void onSubscribe(Subscription s) {
                    s.request(Long.MAX_VALUE);
                }

                @Override
                public void onNext(ByteBuffer b) {
                    b.position(b.limit());
                }

                @Override
                public void onError(Throwable t) {
                    request.responseHandler().onError(t);
                    done.completeExceptionally(t);
                }

                @Override
                public void onComplete() {
                    byte[] body = answer(request.request()).getBytes(StandardCharsets.UTF_8);
                    request.responseHandler().onHeaders(ok(body.length));
                    request.responseHandler().onStream(AsyncRequestBody.fromBytes(body));
                    done.complete(null);
                }
            });
            return done;
        }

        @Override
        public String clientName() {
            return "PrimingInMemory";
        }

        @Override
        public void close() {}
    }

    private final class InMemorySync implements SdkHttpClient {
        @Override
        public ExecutableHttpRequest prepareRequest(HttpExecuteRequest request) {
            return new ExecutableHttpRequest() {
                @Override
                public HttpExecuteResponse call() {
                    byte[] body = answer(request.httpRequest()).getBytes(StandardCharsets.UTF_8);
                    return HttpExecuteResponse.builder()
                            .response(ok(body.length))
                            .responseBody(AbortableInputStream.create(new ByteArrayInputStream(body)))
                            .build();
                }

                @Override
                public void abort() {}
            };
        }

        @Override
        public String clientName() {
            return "PrimingInMemory";
        }

        @Override
        public void close() {}
    }
}
