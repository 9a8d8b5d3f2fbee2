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

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPEvent;
import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import dev.pulse.config.PulseConfig;
import dev.pulse.snapstart.Priming;
import dev.pulse.snapstart.PrimingClients;
import dev.pulse.snapstart.PrimingContext;
import dev.pulse.snapstart.RuntimeSerialization;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/**
 * QueryFunction's SnapStart priming: a second {@link QueryHandler} with the production wiring on
 * {@link PrimingClients} and a throwaway EMF sink (its own rollup cache, so nothing primed is served later), asked
 * {@code POST /query} over a range that reads partials and rollups, {@code GET /series} by name and by prefix, and a
 * bad request: parsing, validation, the planned reads (marshalled, answered in memory with no items), the JSON
 * answer and the EMF document run before the snapshot. The function's own handler, client, cache and cold-start
 * flag are not touched.
 */
final class QueryPriming extends Priming {

    static final int ROUNDS = 3;
    private final PulseConfig config;

    QueryPriming(PulseConfig config) {
        super("query");
        this.config = config;
    }

    @Override
    protected int prime() throws Exception {
        int paths = primeCodecs() + primePeriodBuckets();
        try (PrimingClients clients = new PrimingClients()) {
            QueryHandler handler =
                    QueryFunction.handler(config, clients.dynamoDb(), Clock.systemUTC(), throwawayMetrics());
            PrimingContext context = new PrimingContext();
            for (int round = 0; round < ROUNDS; round++) {
                for (APIGatewayV2HTTPEvent event : events(Instant.now())) {
                    APIGatewayV2HTTPResponse response = handler.handleRequest(event, context);
                    boolean bad = event.getBody() != null && event.getBody().contains("\"priming-bad\"");
                    if (response.getStatusCode() != (bad ? 400 : 200)) {
                        throw new IllegalStateException(
                                "priming request answered " + response.getStatusCode() + ": " + response.getBody());
                    }
                    if (RuntimeSerialization.roundTrip(APIGatewayV2HTTPEvent.class, event)) {
                        RuntimeSerialization.write(APIGatewayV2HTTPResponse.class, response);
                    }
                    paths++;
                }
            }
            recordRequests(clients);
        }
        return paths;
    }

    /**
     * The warm path the in-memory answers (no items) never reach: an hour of synthetic minute summaries, as read
     * from storage, grouped at PT5M on and off the hour, joined across the hour, and answered as values and text.
     */
    private static int primePeriodBuckets() {
        java.util.SortedMap<Long, dev.pulse.aggregate.Summary> hour = new java.util.TreeMap<>();
        for (int m = 0; m < 60; m++) {
            dev.pulse.aggregate.Summary s = new dev.pulse.aggregate.Summary();
            for (int v = 1; v <= 6; v++) {
                s.add(m + v * 3.5);
            }
            hour.put(
                    m * 60_000L,
                    dev.pulse.store.codec.SummaryCodec.decode(dev.pulse.store.codec.SummaryCodec.encode(s), true));
        }
        List<Stat> stats = List.of(Stat.parse("count"), Stat.parse("avg"), Stat.parse("max"), Stat.parse("p99"));
        long period = 300_000L;
        PeriodBucket[] on = PeriodBucket.group(hour, period, 0, Long.MAX_VALUE, true, stats);
        PeriodBucket[] off = PeriodBucket.group(hour, period, 120_000L, Long.MAX_VALUE, true, stats);
        PeriodBucket joined = off[off.length - 1].join(off[0]);
        double check = 0;
        for (PeriodBucket b : on) {
            for (Stat st : stats) {
                check += b.value(st) + (b.text(st) == null ? 0 : 1);
            }
        }
        if (!(check > 0) || joined.value(stats.get(0)) <= 0) {
            throw new IllegalStateException("period buckets answered nothing");
        }
        return 1;
    }

    /**
     * POST /query over the last two days (partials and rollups), GET /series by name and prefix, a bad query, a
     * PromQL range query and a label listing.
     */
    static List<APIGatewayV2HTTPEvent> events(Instant now) {
        Instant end = now.truncatedTo(ChronoUnit.HOURS);
        String query =
                "{\"series\":[{\"name\":\"pulse.priming\",\"dims\":{\"fn\":\"query\"}},{\"name\":\"Priming/Latency\"}],"
                        + "\"start\":\"" + end.minus(2, ChronoUnit.DAYS) + "\",\"end\":\"" + end
                        + "\",\"period\":\"PT1H\","
                        + "\"stats\":[\"count\",\"sum\",\"avg\",\"min\",\"max\",\"p50\",\"p99\",\"p99.9\"]}";
        String recent = "{\"series\":[{\"name\":\"pulse.priming\"}],\"start\":"
                + now.minus(1, ChronoUnit.HOURS).toEpochMilli() + ",\"end\":" + now.toEpochMilli()
                + ",\"period\":60,\"stats\":[\"avg\",\"p90\"]}";
        String bad = "{\"series\":[{\"name\":\"priming-bad\"}],\"start\":\"yesterday\"}";
        // The Prometheus API: the PromQL parser, evaluator and catalog matcher (no series in priming: no reads).
        APIGatewayV2HTTPEvent promql = request("GET", "/prometheus/api/v1/query_range", null, null);
        promql.setRawQueryString("query="
                + java.net.URLEncoder.encode(
                        "sum by (fn) (quantile_over_time(0.99, " + "pulse.priming{fn=~\"q.*\"}[5m])) * 2",
                        java.nio.charset.StandardCharsets.UTF_8)
                + "&start="
                + now.minus(1, ChronoUnit.HOURS).getEpochSecond() + "&end=" + now.getEpochSecond() + "&step=60");
        APIGatewayV2HTTPEvent labels = request("GET", "/prometheus/api/v1/label/__name__/values", null, null);
        return List.of(
                request("POST", "/query", query, null),
                request("POST", "/query", recent, null),
                request("GET", "/series", null, Map.of("name", "pulse.priming")),
                request("GET", "/series", null, Map.of("prefix", "pulse.")),
                request("POST", "/query", bad, null),
                promql,
                labels);
    }

    private static APIGatewayV2HTTPEvent request(String method, String path, String body, Map<String, String> params) {
        return APIGatewayV2HTTPEvent.builder()
                .withVersion("2.0")
                .withRouteKey(method + " " + path)
                .withRawPath(path)
                .withHeaders(Map.of("content-type", "application/json"))
                .withQueryStringParameters(params)
                .withBody(body)
                .withIsBase64Encoded(false)
                .withRequestContext(APIGatewayV2HTTPEvent.RequestContext.builder()
                        .withRequestId(PrimingContext.REQUEST_ID)
                        .withRouteKey(method + " " + path)
                        .withStage("$default")
                        .withHttp(APIGatewayV2HTTPEvent.RequestContext.Http.builder()
                                .withMethod(method)
                                .withPath(path)
                                .withProtocol("HTTP/1.1")
                                .withSourceIp("127.0.0.1")
                                .build())
                        .build())
                .build();
    }
}
