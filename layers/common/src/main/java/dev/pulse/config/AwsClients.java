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
package dev.pulse.config;

import dev.pulse.metrics.SdkClientMetrics;
import dev.pulse.retry.SdkBackoff;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Map;
import software.amazon.awssdk.awscore.client.builder.AwsClientBuilder;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.ServiceMetadata;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * Builds the SDK v2 clients once per container, with an explicit region and the lightweight HTTP clients
 * (AWS CRT for async, URL connection for sync; no Apache or Netty). Endpoints: the SDK reads
 * {@code AWS_ENDPOINT_URL} and {@code AWS_ENDPOINT_URL_<SERVICE>} itself, which is how the same code runs against
 * LocalStack or the local emulators; every client also goes through {@link #endpoint}, which makes an empty
 * variable mean "not set" (see there). Every client publishes its own metrics (API call durations, retries,
 * throttling, connection-pool waits) to {@link SdkClientMetrics#shared()}, which each invocation writes with its
 * own EMF document.
 */
public final class AwsClients {

    private AwsClients() {}

    static Region region() {
        String r = System.getenv("AWS_REGION");
        if (r == null || r.isBlank()) {
            r = System.getenv("AWS_DEFAULT_REGION");
        }
        if (r == null || r.isBlank()) {
            throw new ConfigException("AWS_REGION is required (the Lambda runtime sets it)");
        }
        return Region.of(r);
    }

    /**
     * DynamoDB without SDK retries: {@code DynamoDbStore} retries throttling and unprocessed items itself,
     * within the invocation's deadline, and counts them.
     */
    public static DynamoDbAsyncClient dynamoDbAsync(int maxConcurrency) {
        return dynamoDbAsync(maxConcurrency, false);
    }

    /**
     * DynamoDB with the SDK's standard retries ({@code sdkRetries}) for callers that have no retry loop of
     * their own (the compactor, the query API), or without them.
     */
    public static DynamoDbAsyncClient dynamoDbAsync(int maxConcurrency, boolean sdkRetries) {
        return endpoint(DynamoDbAsyncClient.builder(), "DYNAMODB", "dynamodb", region())
                .region(region())
                .httpClientBuilder(AwsCrtAsyncHttpClient.builder()
                        .maxConcurrency(Math.max(maxConcurrency, 8))
                        .connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .retryStrategy(sdkRetries ? standardRetries() : AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(Duration.ofSeconds(10))
                        .addMetricPublisher(SdkClientMetrics.shared())
                        .build())
                .build();
    }

    /**
     * The SDK's standard retries with DynamoDB's delays (25 ms, 500 ms when throttled, at most 20 s), jittered by
     * {@link SdkBackoff}: the SDK's own jitter could not be reseeded after a SnapStart restore.
     */
    static RetryStrategy standardRetries() {
        return AwsRetryStrategy.standardRetryStrategy().toBuilder()
                .backoffStrategy(SdkBackoff.create(Duration.ofMillis(25), Duration.ofSeconds(20)))
                .throttlingBackoffStrategy(SdkBackoff.create(Duration.ofMillis(500), Duration.ofSeconds(20)))
                .build();
    }

    public static SqsClient sqs() {
        return endpoint(SqsClient.builder(), "SQS", "sqs", region())
                .region(region())
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(
                        o -> o.apiCallTimeout(Duration.ofSeconds(5)).addMetricPublisher(SdkClientMetrics.shared()))
                .build();
    }

    /**
     * Applies {@code AWS_ENDPOINT_URL_<envSuffix>} as the SDK would, except that an empty value means "not set".
     * template.yaml declares the endpoint variables with {@code AWS::NoValue} so that {@code sam local invoke
     * --env-vars} can override them: deployed, CloudFormation leaves them out; under {@code sam local} without
     * an override they arrive empty, and the SDK would take the empty string as the endpoint ("protocol must not
     * be null" on every call). Empty: the service's regional endpoint from the SDK's metadata (what the SDK
     * resolves with no variable), or {@code AWS_ENDPOINT_URL} when that is set. Unset: nothing changes, the SDK
     * resolves as usual. A value that is not an http(s) URL with a host stops the function at start.
     *
     * @param envSuffix      the SDK's name for the service in the variable (DYNAMODB, SQS, SECRETS_MANAGER, ...)
     * @param endpointPrefix the service's endpoint prefix in the SDK's metadata (dynamodb, sqs, secretsmanager)
     */
    public static <B extends AwsClientBuilder<B, ?>> B endpoint(
            B builder, String envSuffix, String endpointPrefix, Region region) {
        URI uri = endpointOverride(System.getenv(), envSuffix, endpointPrefix, region);
        return uri == null ? builder : builder.endpointOverride(uri);
    }

    /** The explicit endpoint {@link #endpoint} sets for {@code env}, or null when the SDK should resolve it. */
    static URI endpointOverride(Map<String, String> env, String envSuffix, String endpointPrefix, Region region) {
        String name = "AWS_ENDPOINT_URL_" + envSuffix;
        String value = env.get(name);
        if (value == null) {
            return null;
        }
        if (!value.isBlank()) {
            return endpointUri(name, value.strip());
        }
        String global = env.get("AWS_ENDPOINT_URL");
        if (global != null && !global.isBlank()) {
            return endpointUri("AWS_ENDPOINT_URL", global.strip());
        }
        return URI.create("https://" + ServiceMetadata.of(endpointPrefix).endpointFor(region));
    }

    private static URI endpointUri(String name, String value) {
        try {
            URI uri = new URI(value);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // reported below with the variable's name
        }
        throw new ConfigException(
                name + " must be an http(s) URL with a host, e.g. http://127.0.0.1:8000; got '" + value + "'");
    }
}
