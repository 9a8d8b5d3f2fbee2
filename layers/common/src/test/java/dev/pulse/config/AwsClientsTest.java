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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/** The endpoint variables template.yaml declares for sam local: an empty one must mean "not set". */
class AwsClientsTest {

    @Test
    void endpointOverride_whenVariableAbsent_leavesTheSdkToResolve() {
        assertThat(AwsClients.endpointOverride(Map.of(), "DYNAMODB", "dynamodb", Region.US_EAST_1))
                .isNull();
    }

    @Test
    void endpointOverride_whenVariableSet_usesIt() {
        assertThat(AwsClients.endpointOverride(
                        Map.of("AWS_ENDPOINT_URL_DYNAMODB", " http://host.docker.internal:8000 "),
                        "DYNAMODB",
                        "dynamodb",
                        Region.US_EAST_1))
                .isEqualTo(URI.create("http://host.docker.internal:8000"));
    }

    @Test
    void endpointOverride_whenVariableEmpty_usesTheRegionalEndpoint() {
        assertThat(AwsClients.endpointOverride(Map.of("AWS_ENDPOINT_URL_SQS", ""), "SQS", "sqs", Region.EU_WEST_1))
                .isEqualTo(URI.create("https://sqs.eu-west-1.amazonaws.com"));
    }

    @Test
    void endpointOverride_whenVariableEmptyAndGlobalSet_usesTheGlobalOne() {
        assertThat(AwsClients.endpointOverride(
                        Map.of("AWS_ENDPOINT_URL_SQS", "", "AWS_ENDPOINT_URL", "http://127.0.0.1:4566"),
                        "SQS",
                        "sqs",
                        Region.US_EAST_1))
                .isEqualTo(URI.create("http://127.0.0.1:4566"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:8000", "ftp://host/", "http://", "http://exa mple"})
    void endpointOverride_whenVariableNotAnHttpUrl_namesTheVariable(String value) {
        assertThatThrownBy(() -> AwsClients.endpointOverride(
                        Map.of("AWS_ENDPOINT_URL_KINESIS", value), "KINESIS", "kinesis", Region.US_EAST_1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("AWS_ENDPOINT_URL_KINESIS");
    }

    /** The SDK alone takes an empty variable as the endpoint; through {@link AwsClients#endpoint} it does not. */
    @Test
    void endpoint_whenVariableEmpty_clientGetsAUsableEndpoint() {
        URI uri = AwsClients.endpointOverride(
                Map.of("AWS_ENDPOINT_URL_DYNAMODB", ""), "DYNAMODB", "dynamodb", Region.US_EAST_1);
        try (DynamoDbAsyncClient c = DynamoDbAsyncClient.builder()
                .region(Region.US_EAST_1)
                .endpointOverride(uri)
                .build()) {
            assertThat(c.serviceClientConfiguration().endpointOverride())
                    .contains(URI.create("https://dynamodb.us-east-1.amazonaws.com"));
        }
    }
}
