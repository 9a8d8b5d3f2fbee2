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
package dev.pulse.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.testing.TestContext;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP translation of the rules API: routes, methods and bad parameters in Prometheus' error envelope. */
class RulesApiHandlerTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static APIGatewayV2HTTPResponse call(String method, String path, String query) throws Exception {
        RuleSet rules = RuleFiles.load(Map.of(
                "r.yml",
                "groups:\n- name: g\n  rules:\n  - {alert: A, expr: x > 0}\n" + "  - {record: 'r:x', expr: x}\n"));
        APIGatewayV2HTTPEvent event = APIGatewayV2HTTPEvent.builder()
                .withRawPath(path)
                .withRawQueryString(query)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                .withMethod(method)
                                .build())
                        .build())
                .build();
        return new RulesApiHandler(new RulesApi(rules, new InMemoryAlertStore()))
                .handleRequest(event, new TestContext("req", 10_000, 512));
    }

    @ParameterizedTest
    @CsvSource(
            value = {
                "GET, /prometheus/api/v1/rules, '', 200, success, 2",
                "GET, /prometheus/api/v1/rules, type=alert, 200, success, 1",
                "GET, /prometheus/api/v1/rules, type=record&x=1, 200, success, 1",
                "GET, /prometheus/api/v1/rules, type=alerting, 400, bad_data, -1",
                "GET, /prometheus/api/v1/rules, type=%zz, 400, bad_data, -1",
                "POST, /prometheus/api/v1/rules, '', 405, bad_data, -1",
                "GET, /prometheus/api/v1/alerts, '', 200, success, -1",
                "GET, /prometheus/api/v1/rulez, '', 404, not_found, -1"
            })
    void handleRequest_whenCalled_answersInPrometheusEnvelope(
            String method, String path, String query, int status, String outcome, int rules) throws Exception {
        APIGatewayV2HTTPResponse r = call(method, path, query);

        assertThat(r.getStatusCode()).isEqualTo(status);
        assertThat(r.getHeaders()).containsEntry("Content-Type", "application/json");
        JsonNode body = JSON.readTree(r.getBody());
        if (status == 200) {
            assertThat(body.get("status").asText()).isEqualTo(outcome);
        } else {
            assertThat(body.get("status").asText()).isEqualTo("error");
            assertThat(body.get("errorType").asText()).isEqualTo(outcome);
            assertThat(body.get("error").asText()).isNotBlank();
        }
        if (rules >= 0) {
            assertThat(body.get("data").get("groups").get(0).get("rules")).hasSize(rules);
        }
        if (path.endsWith("alerts") && status == 200) {
            assertThat(body.get("data").get("alerts")).isEmpty();
        }
    }
}
