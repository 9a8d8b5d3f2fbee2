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
package dev.pulse.grafana;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.testing.ExpectedResults;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

/**
 * The Grafana setup of docs/grafana.md signs with service {@code execute-api} (a SigV4 proxy with
 * {@code --name execute-api}); Grafana's own SigV4 option signs Prometheus data sources for {@code aps}. Two
 * independent signers (the AWS SDK for Java's, which the API's own clients use, and botocore's) agree on the
 * Authorization of a Prometheus query for execute-api, and a request signed for aps carries another credential
 * scope, which API Gateway refuses ("Credential should be scoped to correct service: 'execute-api'"). What could
 * not run here: a real API Gateway, Grafana and the proxy (see docs/grafana.md).
 */
class SigV4ExecuteApiTest {

    private static final String URL = "https://abc123.execute-api.us-east-1.amazonaws.com/prometheus/api/v1/query_range"
            + "?query=quantile_over_time%280.99%2C%20%7B__name__%3D%22lambda.duration%22%7D%5B1m%5D%29&start=1795132800"
            + "&end=1795136400&step=60";
    private static final Instant AT = Instant.parse("2026-11-24T12:00:00Z");

    private static String sdkAuthorization(String service) {
        SignedRequest signed = AwsV4HttpSigner.create()
                .sign(r -> r.identity(AwsCredentialsIdentity.create(
                                "AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"))
                        .request(SdkHttpRequest.builder()
                                .method(SdkHttpMethod.GET)
                                .uri(URI.create(URL))
                                .build())
                        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, service)
                        .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(AT, ZoneOffset.UTC)));
        return signed.request().firstMatchingHeader("Authorization").orElseThrow();
    }

    private static String botocoreAuthorization(String service) throws Exception {
        Path python = Path.of(System.getProperty("pulse.moto.bin")).resolveSibling("python");
        Path script = ExpectedResults.repoRoot().resolve("tests/src/test/resources/grafana/sigv4_sign.py");
        ProcessBuilder pb = new ProcessBuilder(
                        python.toString(), script.toString(), service, "us-east-1", URL, "20261124T120000Z")
                .redirectErrorStream(true);
        pb.environment().put("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
        pb.environment().put("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        List<String> lines = out.lines().toList();
        assertThat(lines.get(0)).isEqualTo("20261124T120000Z");
        return lines.get(1);
    }

    @Test
    void sign_whenServiceIsExecuteApi_sdkAndBotocoreAgreeOnScopeAndSignature() throws Exception {
        String sdk = sdkAuthorization("execute-api");

        assertThat(sdk)
                .contains("Credential=AKIDEXAMPLE/20261124/us-east-1/execute-api/aws4_request")
                .contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date");
        assertThat(botocoreAuthorization("execute-api")).isEqualTo(sdk);
    }

    @Test
    void sign_whenServiceIsGrafanasAps_scopeIsNotTheOneApiGatewayChecks() throws Exception {
        String aps = botocoreAuthorization("aps");

        assertThat(aps).contains("/us-east-1/aps/aws4_request").doesNotContain("execute-api");
        assertThat(aps.replaceAll(".*Signature=", ""))
                .isNotEqualTo(sdkAuthorization("execute-api").replaceAll(".*Signature=", ""));
    }
}
