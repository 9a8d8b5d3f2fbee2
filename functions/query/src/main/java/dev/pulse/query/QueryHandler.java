package dev.pulse.query;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.config.AwsClients;
import dev.pulse.config.PulseConfig;
import dev.pulse.metrics.ColdStart;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.metrics.PulseMetrics;
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

import static software.amazon.lambda.powertools.logging.argument.StructuredArguments.entry;

/**
 * Lambda entry point behind the HTTP API ({@code POST /query}, {@code GET /series}). Translates only: the
 * request to a validated query, the result to JSON; bad input to 400 with the field, never to a 500.
 */
public final class QueryHandler implements RequestHandler<APIGatewayV2HTTPEvent, APIGatewayV2HTTPResponse> {

    private static final Logger LOG = LoggerFactory.getLogger(QueryHandler.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The answer must leave the function well before API Gateway's 30 s integration timeout. */
    static final long MAX_BUDGET_MILLIS = 10_000;

    private final QueryService queries;
    private final CatalogService catalog;
    private final Metrics metrics;
    private final long safetyMarginMillis;
    private final ColdStart coldStart = new ColdStart();
    /** The SnapStart hooks; held here because the runtime's CRaC context holds them weakly. */
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
        this(config, client, Clock.systemUTC(), PulseMetrics.create("query"));
    }

    /** The production wiring on a given client, clock and metrics sink (the benchmarks' way in). */
    QueryHandler(PulseConfig config, DynamoDbAsyncClient client, Clock clock, Metrics metrics) {
        this(new QueryService(client, config.tableName(), config.writeConcurrency() * 4, config.buildGrace().toMillis(),
                new RollupCache(400_000, 5 * 60_000L), clock, config.hourlyTtl().toMillis(), config.acceptFuture().toMillis()),
                new CatalogService(client, config.tableName()), metrics, config.safetyMarginMillis());
    }

    QueryHandler(QueryService queries, CatalogService catalog, Metrics metrics, long safetyMarginMillis) {
        this.queries = queries;
        this.catalog = catalog;
        this.metrics = metrics;
        this.safetyMarginMillis = safetyMarginMillis;
    }

    @Override
    public APIGatewayV2HTTPResponse handleRequest(APIGatewayV2HTTPEvent event, Context context) {
        return PowertoolsLogging.withLogging(context, () -> InvocationMetrics.measure(QueryMetric.class, metrics, counters -> {
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
                return error(500, "InternalError", "the query could not be answered; it is safe to retry", null);
            } finally {
                counters.set(QueryMetric.QUERY_LATENCY_MS, (System.nanoTime() - started) / 1e6);
            }
        }));
    }

    private APIGatewayV2HTTPResponse route(APIGatewayV2HTTPEvent event, Context context,
            InvocationMetrics<QueryMetric> counters) throws BadRequestException {
        String method = event.getRequestContext() == null || event.getRequestContext().getHttp() == null
                ? "" : event.getRequestContext().getHttp().getMethod();
        String path = event.getRawPath() == null ? "" : event.getRawPath();
        if (path.endsWith("/query")) {
            if (!"POST".equals(method)) {
                return error(405, "MethodNotAllowed", "use POST /query", null);
            }
            QueryRequest request = QueryParser.parse(body(event));
            queries.checkResolution(request);
            long budget = Math.min(MAX_BUDGET_MILLIS, context.getRemainingTimeInMillis() - safetyMarginMillis);
            return ok(toJson(queries.query(request, Deadline.inMillis(budget), counters), request));
        }
        if (path.endsWith("/series")) {
            if (!"GET".equals(method)) {
                return error(405, "MethodNotAllowed", "use GET /series", null);
            }
            Map<String, String> params = event.getQueryStringParameters() == null ? Map.of() : event.getQueryStringParameters();
            return ok(catalog.list(params));
        }
        return error(404, "NotFound", "no route " + method + " " + path + "; the API has POST /query and GET /series", null);
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

    static ObjectNode toJson(QueryResult r, QueryRequest request) {
        ObjectNode out = JSON.createObjectNode();
        out.put("start", request.start());
        out.put("end", request.end());
        out.put("period", r.periodSeconds());
        ArrayNode ts = out.putArray("timestamps");
        r.timestamps().forEach(ts::add);
        ArrayNode series = out.putArray("series");
        for (QueryResult.SeriesValues s : r.series()) {
            ObjectNode n = describe(series.addObject(), s.series());
            ObjectNode values = n.putObject("values");
            s.values().forEach((stat, vs) -> {
                ArrayNode a = values.putArray(stat);
                vs.forEach(v -> {
                    if (v == null || !Double.isFinite(v)) {
                        a.addNull();
                    } else {
                        a.add(v);
                    }
                });
            });
        }
        ArrayNode unprocessed = out.putArray("unprocessed");
        r.unprocessed().forEach(u -> describe(unprocessed.addObject(), u.series()).put("reason", u.reason()));
        if (r.nextToken() == null) {
            out.putNull("nextToken");
        } else {
            out.put("nextToken", r.nextToken());
        }
        return out;
    }

    private static ObjectNode describe(ObjectNode n, SeriesSpec s) {
        n.put("name", s.name());
        ObjectNode dims = n.putObject("dims");
        new TreeMap<>(s.dims()).forEach(dims::put);
        n.put("key", s.key());
        return n;
    }

    private static APIGatewayV2HTTPResponse ok(ObjectNode body) {
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
            return APIGatewayV2HTTPResponse.builder()
                    .withStatusCode(status)
                    .withHeaders(Map.of("Content-Type", "application/json"))
                    .withBody(JSON.writeValueAsString(body))
                    .build();
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }
}
