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
package dev.pulse.push;

import dev.pulse.codec.RecordDecoder;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.model.DatapointValidator;
import dev.pulse.retry.Backoff;
import java.time.Clock;
import java.time.Duration;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.http.crt.AwsCrtAsyncHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How PushFunction is put together: the OTLP/HTTP and Prometheus remote write endpoints, putting what they receive on
 * the Kinesis stream IngestFunction reads. The runtime's path and every test that runs the function in process go
 * through these methods.
 */
public final class PushFunction {

    private PushFunction() {}

    /** What the runtime's handler holds. */
    record Wiring(PushService service, Metrics metrics, long safetyMarginMillis) {}

    /** The deployed wiring: a Kinesis client built from the Lambda environment, the system clock. */
    static Wiring wire(PushConfig config) {
        KinesisAsyncClient kinesis = AwsClients.endpoint(
                        KinesisAsyncClient.builder(), "KINESIS", "kinesis", Region.of(config.region()))
                .region(Region.of(config.region()))
                // A built HTTP client: given a builder, the SDK sets Kinesis' default HTTP/2, which PutRecords does not
                // need (and kinesalite, the local stack's emulator, does not speak).
                .httpClient(AwsCrtAsyncHttpClient.builder()
                        .maxConcurrency(16)
                        .connectionTimeout(Duration.ofSeconds(3))
                        .build())
                // KinesisWriter retries failed entries itself, within the request's deadline.
                .overrideConfiguration(ClientOverrideConfiguration.builder()
                        .retryStrategy(noRetries())
                        .apiCallAttemptTimeout(Duration.ofSeconds(10))
                        .build())
                .build();
        return new Wiring(
                service(config, kinesis, Clock.systemUTC()),
                PulseMetrics.create("push"),
                config.shared().safetyMarginMillis());
    }

    private static RetryStrategy noRetries() {
        return software.amazon.awssdk.awscore.retry.AwsRetryStrategy.doNotRetry();
    }

    /** The deployed wiring on a given Kinesis client (an emulator in tests) and clock. */
    public static PushService service(PushConfig config, KinesisAsyncClient kinesis, Clock clock) {
        PulseConfig shared = config.shared();
        // Push's window, narrower than ingest's: what push takes must still be inside ingest's on arrival.
        DatapointValidator validator =
                new DatapointValidator(clock, config.pushAcceptPast(), config.pushAcceptFuture());
        RecordPacker packer = new RecordPacker(
                new RecordDecoder(validator),
                validator,
                config.partitionKeys(),
                config.maxSeriesPerRequest(),
                config.maxDatapointsPerRequest());
        KinesisWriter writer = new KinesisWriter(
                kinesis, config.streamName(), new Backoff(shared.retryBaseMillis(), shared.retryCapMillis()));
        return new PushService(config, packer, writer, clock);
    }

    /** The Lambda handler around {@code service}, as the runtime calls it. */
    public static PushHandler handler(PushService service, Metrics metrics, long safetyMarginMillis) {
        return new PushHandler(service, metrics, safetyMarginMillis);
    }
}
