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
package dev.pulse.query;

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
import dev.pulse.query.promql.PromQlException;
import dev.pulse.query.promql.PromQlService;
import dev.pulse.query.promql.internal.ApiParams;
import dev.pulse.retry.Deadline;
import dev.pulse.snapstart.Priming;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;
import software.amazon.lambda.powertools.logging.PowertoolsLogging;
import software.amazon.lambda.powertools.metrics.Metrics;

/**
 * Lambda entry point behind the HTTP API ({@code POST /query}, {@code GET /series}, and the Prometheus API under
 * {@code /prometheus/api/v1/}). Translates only: the request to a validated query, the result to JSON; bad input to
 * 400 with the field (Prometheus' {@code bad_data} on its routes), never to a 500.
 */
public final class QueryHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(QueryHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The answer must leave the function well before API Gateway's 30 s integration timeout. */
    static final long MAX_BUDGET_MILLIS = 10_000;
    /** Where the Prometheus HTTP API lives: {@code /prometheus/api/v1/query_range} and so on. */
    static final String PROMETHEUS_PREFIX = "/prometheus/api/v1/";

    private final QueryService queries;
    private final CatalogService catalog;
    private final PromQlService prometheus;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final ColdStart coldStart = new ColdStart();
    /** The SnapStart hooks; held here because the runtime's CRaC context holds them weakly. */
    // Never read: the field is the strong reference that keeps the hooks alive.
    @SuppressWarnings("UnusedVariable")
    private Priming priming;

    /**
     * Used by the Lambda runtime: configuration from the environment, clients built once per container, the
     * SnapStart priming hooks registered.
     */
    public QueryHandler() {
        this(PulseConfig.fromEnvironment(System.getenv()));
    }

    private QueryHandler(PulseConfig config) {
        this(config, AwsClients.dynamoDbAsync(config.writeConcurrency() * 4, true));
        this.priming = Priming.register(new QueryPriming(config));
    }

    private QueryHandler(PulseConfig config, DynamoDbAsyncClient client) {
        this(
                QueryFunction.service(config, client, Clock.systemUTC(), QueryFunction.cache()),
                new CatalogService(client, config.tableName()),
                PulseMetrics.create("query"),
                config.safetyMarginMillis(),
                Clock.systemUTC());
    }

    /** The handler around wired services; {@link QueryFunction#handler} is the way in from other packages. */
    QueryHandler(QueryService queries, CatalogService catalog, Metrics metrics, long safetyMarginMillis, Clock clock) {
        this.queries = queries;
        this.catalog = catalog;
        this.prometheus = new PromQlService(queries, catalog, clock);
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return PowertoolsLogging.withLogging(
                context,
                () -> InvocationMetrics.measure(QueryMetric.class, metrics, counters -> {
                    long started = System.nanoTime();
                    counters.add(QueryMetric.COLD_START, coldStart.take() ? 1 : 0);
                    try {
                        return route(event, context, counters);
                    } catch (BadRequestException e) {
                        counters.increment(QueryMetric.BAD_REQUESTS);
                        LOG.info("bad request", entry("code", e.code()), entry("field", e.field()));
                        return error(400, e.code(), e.getMessage(), e.field());
                    } catch (RuntimeException e) {
                        LOG.error("query failed", e);
                        return error(
                                500, "InternalError", "the query could not be answered; it is safe to retry", null);
                    } finally {
                        counters.set(QueryMetric.QUERY_LATENCY_MS, (System.nanoTime() - started) / 1e6);
                    }
                }));
    }

    private APIGatewayV2HTTPResponse route(
            APIGatewayV2HTTPEvent event, Context context, InvocationMetrics<QueryMetric> counters)
            throws BadRequestException {
        String method =
                event.getRequestContext() == null || event.getRequestContext().getHttp() == null
                        ? ""
                        : event.getRequestContext().getHttp().getMethod();
        String path = event.getRawPath() == null ? "" : event.getRawPath();
        if (path.startsWith(PROMETHEUS_PREFIX)) {
            return prometheus(event, context, counters, method, path.substring(PROMETHEUS_PREFIX.length()));
        }
        if (path.endsWith("/query")) {
            if (!"POST".equals(method)) {
                return error(405, "MethodNotAllowed", "use POST /query", null);
            }
            NativeQuery request = QueryParser.parse(body(event));
            long budget = Math.min(MAX_BUDGET_MILLIS, context.getRemainingTimeInMillis() - safetyMarginMillis);
            return ok(toJson(queries.query(request, Deadline.inMillis(budget), counters), request));
        }
        if (path.endsWith("/series")) {
            if (!"GET".equals(method)) {
                return error(405, "MethodNotAllowed", "use GET /series", null);
            }
            Map<String, String> params =
                    event.getQueryStringParameters() == null ? Map.of() : event.getQueryStringParameters();
            return ok(catalog.list(params));
        }
        return error(
                404, "NotFound", "no route " + method + " " + path + "; the API has POST /query and GET /series", null);
    }

    /**
     * One Prometheus API call: parameters from the query string and the form body, Prometheus' envelope back, its
     * error types with their statuses.
     */
    private APIGatewayV2HTTPResponse prometheus(
            APIGatewayV2HTTPEvent event,
            Context context,
            InvocationMetrics<QueryMetric> counters,
            String method,
            String endpoint) {
        try {
            String labelName = null;
            if (endpoint.startsWith("label/")
                    && endpoint.endsWith("/values")
                    && endpoint.length() > "label//values".length()) {
                try {
                    labelName = java.net.URLDecoder.decode(
                            endpoint.substring("label/".length(), endpoint.length() - "/values".length()),
                            StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    throw new PromQlException(PromQlException.Type.BAD_DATA, "invalid URL escape in the label name");
                }
                endpoint = "label_values";
            }
            if (endpoint.equals("status/buildinfo")) {
                endpoint = "buildinfo";
            }
            boolean knownEndpoint = java.util.Set.of(
                            "query",
                            "query_range",
                            "series",
                            "labels",
                            "label_values",
                            "buildinfo",
                            "metadata",
                            "query_exemplars",
                            "format_query")
                    .contains(endpoint);
            if (!knownEndpoint) {
                return prometheusError(
                        404, "not_found", "no Prometheus API endpoint " + method + " " + event.getRawPath());
            }
            // As Prometheus routes them: the label values, build information and metadata are GET only.
            boolean postAllowed =
                    !java.util.Set.of("label_values", "buildinfo", "metadata").contains(endpoint);
            if (!"GET".equals(method) && !(postAllowed && "POST".equals(method))) {
                return prometheusError(405, "bad_data", "method " + method + " not allowed");
            }
            String body = "POST".equals(method) ? body(event) : null;
            if (body != null && body.length() > QueryLimits.MAX_BODY_BYTES) {
                throw new PromQlException(
                        PromQlException.Type.BAD_DATA,
                        "request body is larger than " + QueryLimits.MAX_BODY_BYTES + " bytes");
            }
            ApiParams params = ApiParams.parse(body, event.getRawQueryString());
            long budget = Math.min(MAX_BUDGET_MILLIS, context.getRemainingTimeInMillis() - safetyMarginMillis);
            return ok(prometheus.answer(endpoint, labelName, params, Deadline.inMillis(budget), counters));
        } catch (PromQlException e) {
            if (e.type() == PromQlException.Type.BAD_DATA) {
                counters.increment(QueryMetric.BAD_REQUESTS);
                LOG.info("bad request", entry("code", e.type().wireName()), entry("field", "query"));
            }
            return prometheusError(e.type().status(), e.type().wireName(), e.getMessage());
        } catch (RuntimeException e) {
            LOG.error("prometheus query failed", e);
            return prometheusError(500, "internal", "the query could not be answered; it is safe to retry");
        }
    }

    private static APIGatewayV2HTTPResponse prometheusError(int status, String type, String message) {
        ObjectNode body = JSON.createObjectNode();
        body.put("status", "error");
        body.put("errorType", type);
        body.put("error", message);
        return response(status, body);
    }

    private static String body(APIGatewayV2HTTPEvent event) {
        String body = event.getBody();
        if (body != null && event.getIsBase64Encoded()) {
            try {
                return new String(Base64.getDecoder().decode(body), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                return "\u0000"; // not base64: parsed as malformed JSON
            }
        }
        return body;
    }

    /**
     * The answer as JSON, written straight to text: a day of 100 series is over 100,000 numbers, and a tree of
     * nodes first (then its serialisation) was a quarter of a warm query's time.
     */
    static String toJson(NativeResult r, NativeQuery request) {
        // Sized for the numbers up front (about 12 characters each), so the buffer rarely grows on a large answer.
        long numbers = (long) r.timestamps().size()
                * (1 + r.series().stream().mapToLong(s -> s.values().size()).sum());
        java.io.StringWriter w = new java.io.StringWriter((int) Math.min(1 << 24, 256 + numbers * 12));
        try (JsonGenerator g = JSON.getFactory().createGenerator(w)) {
            g.writeStartObject();
            g.writeNumberField("start", request.start());
            g.writeNumberField("end", request.end());
            g.writeNumberField("period", r.periodSeconds());
            g.writeArrayFieldStart("timestamps");
            for (long t : r.timestamps()) {
                g.writeNumber(t);
            }
            g.writeEndArray();
            g.writeArrayFieldStart("series");
            for (NativeResult.SeriesValues s : r.series()) {
                g.writeStartObject();
                describe(g, s.series());
                g.writeObjectFieldStart("values");
                for (Map.Entry<String, double[]> e : s.values().entrySet()) {
                    g.writeArrayFieldStart(e.getKey());
                    double[] values = e.getValue();
                    String[] texts = s.texts().get(e.getKey());
                    for (int i = 0; i < values.length; i++) {
                        String text = texts == null ? null : texts[i];
                        if (text != null) {
                            g.writeRawValue(text);
                        } else if (!Double.isFinite(values[i])) {
                            g.writeNull();
                        } else {
                            g.writeNumber(values[i]);
                        }
                    }
                    g.writeEndArray();
                }
                g.writeEndObject();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeArrayFieldStart("unprocessed");
            for (NativeResult.Unprocessed u : r.unprocessed()) {
                g.writeStartObject();
                describe(g, u.series());
                g.writeStringField("reason", u.reason());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeStringField("nextToken", r.nextToken());
            g.writeEndObject();
            g.flush();
            return w.toString();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static void describe(JsonGenerator g, SeriesSpec s) throws java.io.IOException {
        g.writeStringField("name", s.name());
        g.writeObjectFieldStart("dims");
        for (Map.Entry<String, String> d : new TreeMap<>(s.dims()).entrySet()) {
            g.writeStringField(d.getKey(), d.getValue());
        }
        g.writeEndObject();
        g.writeStringField("key", s.key());
    }

    private static APIGatewayV2HTTPResponse ok(ObjectNode body) {
        return response(200, body);
    }

    private static APIGatewayV2HTTPResponse ok(String body) {
        return response(200, body);
    }

    static APIGatewayV2HTTPResponse error(int status, String code, String message, String field) {
        ObjectNode body = JSON.createObjectNode();
        ObjectNode e = body.putObject("error");
        e.put("code", code);
        e.put("message", message);
        if (field == null) {
            e.putNull("field");
        } else {
            e.put("field", field);
        }
        return response(status, body);
    }

    private static APIGatewayV2HTTPResponse response(int status, ObjectNode body) {
        try {
            return response(status, JSON.writeValueAsString(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static APIGatewayV2HTTPResponse response(int status, String body) {
        return APIGatewayV2HTTPResponse.builder()
                .withStatusCode(status)
                .withHeaders(Map.of("Content-Type", "application/json"))
                .withBody(body)
                .build();
    }
}
