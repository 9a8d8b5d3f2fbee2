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
import dev.pulse.config.AwsClients;
import dev.pulse.config.ConfigException;
import dev.pulse.metrics.SdkClientMetrics;
import dev.pulse.retry.Backoff;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.lambda.LambdaAsyncClient;
import software.amazon.awssdk.services.lambda.model.InvocationType;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How LoadGenFunction is put together: its collaborators in, the {@link LoadGenService} or the Lambda handler out.
 * The runtime's path ({@link LoadGenHandler#LoadGenHandler()}) and the tests that run the load generator in process
 * go through these methods.
 */
public final class LoadGenFunction {

    private static final ObjectMapper JSON = new ObjectMapper();

    private LoadGenFunction() {}

    /**
     * The deployed wiring: clients built from the Lambda environment, records sent to {@code stream} (required),
     * workers invoked as {@code functionName} (this same function).
     */
    public static LoadGenService service(String stream, String functionName) {
        if (stream == null || stream.isBlank()) {
            throw new ConfigException("invalid configuration: STREAM_NAME is required");
        }
        Region region = Region.of(System.getenv().getOrDefault("AWS_REGION", "us-east-1"));
        // A built HTTP client: PutRecords needs no HTTP/2, the Kinesis default.
        // No SDK retries under KinesisSender, which retries itself: a call retried inside the SDK after a timeout may
        // store its records twice without the sender knowing, and the canary check could not tell that copy from a
        // pipeline duplicate.
        KinesisAsyncClient kinesis = AwsClients.endpoint(KinesisAsyncClient.builder(), "KINESIS", "kinesis", region)
                .region(region)
                .httpClient(AwsCrtAsyncHttpClient.builder().maxConcurrency(256).build())
                .overrideConfiguration(o ->
                        o.retryStrategy(AwsRetryStrategy.doNotRetry()).addMetricPublisher(SdkClientMetrics.shared()))
                .build();
        // A worker invoke answers only when the worker's run ends, up to 15 minutes without a byte on the connection:
        // the CRT client's default health check (1 byte/s over 30 s) would cut it and fail the run.
        LambdaAsyncClient lambda = AwsClients.endpoint(LambdaAsyncClient.builder(), "LAMBDA", "lambda", region)
                .region(region)
                .httpClient(AwsCrtAsyncHttpClient.builder()
                        .maxConcurrency(LoadGenRequest.MAX_WORKERS)
                        .connectionMaxIdleTime(Duration.ofMinutes(16))
                        .connectionHealthConfiguration(
                                h -> h.minimumThroughputInBps(1L).minimumThroughputTimeout(Duration.ofMinutes(15)))
                        .build())
                // A worker invoke is not retried: a worker run again would send its share of the load twice.
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofMinutes(15))
                        .apiCallAttemptTimeout(Duration.ofMinutes(15))
                        .retryStrategy(AwsRetryStrategy.doNotRetry()))
                .build();
        Path root = Path.of(System.getenv().getOrDefault("LAMBDA_TASK_ROOT", "."));
        String apiUrl = System.getenv("API_URL");
        CanaryVerifier.Reader canary = apiUrl == null || apiUrl.isBlank()
                ? null
                : new ApiCanaryReader(
                        java.net.URI.create(apiUrl),
                        region.id(),
                        software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider.builder()
                                .build(),
                        software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create());
        // Built on first use: most runs replay a bundled file and never pay for an S3 client.
        java.util.function.Supplier<software.amazon.awssdk.services.s3.S3Client> s3 =
                new java.util.function.Supplier<>() {
                    private software.amazon.awssdk.services.s3.S3Client client;

                    @Override
                    public synchronized software.amazon.awssdk.services.s3.S3Client get() {
                        if (client == null) {
                            client = AwsClients.endpoint(
                                            software.amazon.awssdk.services.s3.S3Client.builder(), "S3", "s3", region)
                                    .region(region)
                                    .httpClient(
                                            software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient.create())
                                    .build();
                        }
                        return client;
                    }
                };
        // The template passes ReplayBucket (empty when not set): HTML reports go to reports/ there.
        String reportBucket = System.getenv("REPORT_BUCKET");
        LoadGenService.ReportStore reports =
                reportBucket == null || reportBucket.isBlank() ? null : new S3ReportStore(s3, reportBucket);
        return new LoadGenService(
                new KinesisSender(kinesis, stream, new Backoff(50, 2_000), 6),
                source -> source.startsWith("s3://")
                        ? ReplaySource.loadS3(source, s3.get())
                        : ReplaySource.load(source, root),
                worker -> invokeSelf(lambda, functionName, worker),
                canary,
                reports);
    }

    /**
     * A worker is this same function, invoked synchronously (RequestResponse) with the whole request and its index
     * ({@link LoadGenRequest#toEvent}: every field); a worker that fails is the coordinator's failure, named.
     */
    static CompletableFuture<JsonNode> invokeSelf(LambdaAsyncClient lambda, String functionName, LoadGenRequest w) {
        return lambda.invoke(b -> b.functionName(functionName)
                        .invocationType(InvocationType.REQUEST_RESPONSE)
                        .payload(SdkBytes.fromUtf8String(w.toEvent().toString())))
                .thenApply(resp -> {
                    String payload =
                            resp.payload() == null ? "" : resp.payload().asUtf8String();
                    if (resp.functionError() != null) {
                        throw new IllegalStateException("worker " + w.worker() + " failed (" + resp.functionError()
                                + "): " + (payload.length() > 1_000 ? payload.substring(0, 1_000) + "..." : payload));
                    }
                    try {
                        return JSON.readTree(payload);
                    } catch (IOException e) {
                        throw new IllegalStateException("worker " + w.worker() + " answered no JSON", e);
                    }
                });
    }

    /** The Lambda handler around {@code service}, publishing one metrics document per invocation to {@code metrics}. */
    public static LoadGenHandler handler(LoadGenService service, Metrics metrics) {
        return new LoadGenHandler(service, metrics);
    }
}
