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

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.store.DynamoDbAlertStore;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;

/**
 * {@code GET /prometheus/api/v1/rules} and {@code GET /prometheus/api/v1/alerts} on the stack's HTTP API, in
 * Prometheus' envelope ({@link RulesApi}), so Grafana's alerting view lists Pulse's rules and alerts. A function of
 * the rules module rather than a route of the query function: it needs the rule files and their loader, and the
 * rules module depends on the query module, not the reverse. Reads only: the deployed rule files and the {@code A#}
 * items. Translates only; bad input is a 400 in Prometheus' form naming the parameter.
 */
public final class RulesApiHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(RulesApiHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    static final String PREFIX = "/prometheus/api/v1/";
    /** A read of the state answers well before API Gateway's 30 s integration timeout. */
    private static final long READ_BUDGET_MILLIS = 10_000;

    private final RulesApi api;

    /** Used by the Lambda runtime: the rule files and the configuration read and checked once per container. */
    public RulesApiHandler() throws RuleFileException {
        this(PulseConfig.fromEnvironment(System.getenv()));
    }

    private RulesApiHandler(PulseConfig config) throws RuleFileException {
        this(new RulesApi(
                RulesFunction.bundledRules(),
                new DynamoDbAlertStore(
                        AwsClients.dynamoDbAsync(config.writeConcurrency()),
                        config.tableName(),
                        new Backoff(config.retryBaseMillis(), config.retryCapMillis()),
                        () -> Deadline.inMillis(READ_BUDGET_MILLIS))));
    }

    RulesApiHandler(RulesApi api) {
        this.api = api;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> {
            String method = event.getRequestContext() == null
                            || event.getRequestContext().getHttp() == null
                    ? ""
                    : event.getRequestContext().getHttp().getMethod();
            String path = event.getRawPath() == null ? "" : event.getRawPath();
            String endpoint = path.startsWith(PREFIX) ? path.substring(PREFIX.length()) : "";
            if (!endpoint.equals("rules") && !endpoint.equals("alerts")) {
                return error(404, "not_found", "no Prometheus API endpoint " + method + " " + path);
            }
            if (!"GET".equals(method)) {
                return error(405, "bad_data", "method " + method + " not allowed");
            }
            try {
                if (endpoint.equals("alerts")) {
                    return ok(api.alerts());
                }
                return ok(api.rules(param(event.getRawQueryString(), "type")));
            } catch (IllegalArgumentException e) {
                return error(400, "bad_data", e.getMessage());
            } catch (RuntimeException e) {
                LOG.error("rules API failed", e);
                return error(500, "internal", "the rules could not be read; it is safe to retry");
            }
        });
    }

    /** The last value of {@code name} in a query string, or null; a malformed escape is a bad parameter. */
    static String param(String rawQuery, String name) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return null;
        }
        String value = null;
        for (String pair : rawQuery.split("&", -1)) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (decode(key, name).equals(name)) {
                value = eq < 0 ? "" : decode(pair.substring(eq + 1), name);
            }
        }
        return value;
    }

    private static String decode(String s, String name) {
        try {
            return URLDecoder.decode(s, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid URL escape in parameter " + name);
        }
    }

    private static APIGatewayV2HTTPResponse ok(ObjectNode body) {
        return response(200, body);
    }

    private static APIGatewayV2HTTPResponse error(int status, String type, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", "error");
        body.put("errorType", type);
        body.put("error", message);
        return response(status, body);
    }

    private static APIGatewayV2HTTPResponse response(int status, ObjectNode body) {
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(Map.of("Content-Type", "application/json"))
                .withBody(body.toString())
                .build();
    }
}
