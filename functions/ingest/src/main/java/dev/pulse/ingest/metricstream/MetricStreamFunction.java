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
package dev.pulse.ingest.metricstream;

import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.ingest.IngestFunction;
import dev.pulse.metrics.PulseMetrics;
import java.time.Clock;
import java.time.Duration;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.awssdk.services.secretsmanager.SecretsManagerClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * How MetricStreamFunction is put together: the Firehose endpoint of a CloudWatch metric stream, storing through
 * ingest's wiring ({@link IngestFunction#serviceDecoding}) with the metric stream decoder. The runtime's path and every
 * test that runs the function in process go through these methods.
 */
public final class MetricStreamFunction {

    private MetricStreamFunction() {}

    /** What the runtime's handler holds. */
    record Wiring(
            MetricStreamService service, AccessKey accessKey, Metrics metrics, long safetyMarginMillis, Clock clock) {}

    /** The deployed wiring: clients built from the Lambda environment, the system clock. */
    static Wiring wire(MetricStreamConfig config) {
        PulseConfig shared = config.shared();
        SecretsManagerClient secrets = AwsClients.endpoint(
                        SecretsManagerClient.builder(), "SECRETS_MANAGER", "secretsmanager", Region.of(config.region()))
                .region(Region.of(config.region()))
                .httpClientBuilder(UrlConnectionHttpClient.builder().connectionTimeout(Duration.ofSeconds(3)))
                .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(5)))
                .build();
        AccessKey key = new AccessKey(
                () -> secrets.getSecretValue(r -> r.secretId(config.accessKeySecret()))
                        .secretString(),
                Clock.systemUTC());
        // Marks (one UpdateItem each) run before the partials, with twice the lanes, as IngestFunction wires them.
        MetricStreamService service = service(
                shared,
                AwsClients.dynamoDbAsync(shared.writeConcurrency() * 2),
                AwsClients.sqs(),
                Clock.systemUTC(),
                config.region());
        return new Wiring(
                service, key, PulseMetrics.create("metricstream"), shared.safetyMarginMillis(), Clock.systemUTC());
    }

    /** The deployed wiring on given clients (emulators in tests) and clock. */
    public static MetricStreamService service(
            PulseConfig config, DynamoDbAsyncClient dynamo, SqsClient sqs, Clock clock, String region) {
        return new MetricStreamService(
                IngestFunction.serviceDecoding(config, dynamo, sqs, clock, records -> records::decodeMetricStreamUnits),
                region);
    }

    /** The Lambda handler around {@code service}, as the runtime calls it. */
    public static MetricStreamHandler handler(
            MetricStreamService service, AccessKey accessKey, Metrics metrics, long safetyMarginMillis, Clock clock) {
        return new MetricStreamHandler(service, accessKey, metrics, safetyMarginMillis, clock);
    }
}
