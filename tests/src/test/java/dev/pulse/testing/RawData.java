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
package dev.pulse.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.SeriesKey;
import dev.pulse.query.QueryHandler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The datapoints a test sent, by series, and the checks of what the pipeline stores and answers against a
 * direct computation from them: count, sum (exact: BigDecimal, rounded once), min and max equal; avg within
 * 1e-9; p50/p90/p99 within the sketch's 1% of the exact order statistic.
 */
public final class RawData {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] STATS = {"count", "sum", "avg", "min", "max", "p50", "p90", "p99"};

    private record Series(String name, Map<String, String> dims) {}

    private final Map<String, Series> series = new TreeMap<>();
    /** series key -> minute start -> values. */
    private final Map<String, SortedMap<Long, List<Double>>> minutes = new TreeMap<>();

    private long count;

    /** Notes one datapoint; returns its series key. */
    public synchronized String add(String name, Map<String, String> dims, long ts, double value) {
        String key = SeriesKey.of(name, dims);
        series.putIfAbsent(key, new Series(name, Map.copyOf(dims)));
        minutes.computeIfAbsent(key, k -> new TreeMap<>())
                .computeIfAbsent(Math.floorDiv(ts, 60_000L) * 60_000L, k -> new ArrayList<>())
                .add(value);
        count++;
        return key;
    }

    public synchronized long count() {
        return count;
    }

    public synchronized List<String> keys() {
        return List.copyOf(series.keySet());
    }

    /** Minute start -> values of one series. */
    public synchronized SortedMap<Long, List<Double>> byMinute(String key) {
        return minutes.getOrDefault(key, Collections.emptySortedMap());
    }

    /** Period start -> minute start -> values of one series, for periods of {@code size} ms (an hour, a day). */
    public synchronized SortedMap<Long, SortedMap<Long, List<Double>>> byPeriod(String key, long size) {
        SortedMap<Long, SortedMap<Long, List<Double>>> out = new TreeMap<>();
        byMinute(key)
                .forEach((m, vs) -> out.computeIfAbsent(Math.floorDiv(m, size) * size, k -> new TreeMap<>())
                        .put(m, vs));
        return out;
    }

    /** Every value of one series in [from, to) (minute resolution: from and to on whole minutes). */
    public synchronized List<Double> values(String key, long from, long to) {
        return flatten(byMinute(key).subMap(from, to));
    }

    public static List<Double> flatten(SortedMap<Long, List<Double>> byMinute) {
        return byMinute.values().stream().flatMap(List::stream).toList();
    }

    /** A stored summary (a minute, hour or day of a rollup) against the values it must hold. */
    public static void assertSummary(String at, Summary got, List<Double> values) {
        Exact want = Exact.of(values);
        assertThat(got).as(at + " missing").isNotNull();
        assertThat(got.count()).as(at + " count").isEqualTo(want.count());
        assertThat(got.sum()).as(at + " sum").isEqualTo(want.sum());
        assertThat(got.min()).as(at + " min").isEqualTo(want.min());
        assertThat(got.max()).as(at + " max").isEqualTo(want.max());
        for (double q : new double[] {0.5, 0.9, 0.99}) {
            assertThat(got.quantile(q)).as(at + " p" + q).isCloseTo(want.quantile(q), withinPercentage(1.0001));
        }
    }

    /**
     * Queries every series of this data over [start, end) at {@code period} (ISO-8601 or seconds) through the
     * handler and checks every stat of every bucket. Returns the response.
     */
    public JsonNode assertQueryMatches(QueryHandler handler, String start, String end, String period) {
        JsonNode body = post(handler, query(start, end, period));
        assertThat(body.get("unprocessed")).as(body.toString()).isEmpty();
        long from = Instant.parse(start).toEpochMilli();
        long to = Instant.parse(end).toEpochMilli();
        long step = period.startsWith("P") ? Duration.parse(period).toMillis() : Long.parseLong(period) * 1000;
        JsonNode ts = body.get("timestamps");
        assertThat(ts.size()).isEqualTo((int) ((to - from + step - 1) / step));
        List<String> keys = keys();
        assertThat(body.get("series")).hasSize(keys.size());
        for (int s = 0; s < keys.size(); s++) {
            JsonNode served = body.get("series").get(s);
            assertThat(served.get("key").asText()).isEqualTo(keys.get(s));
            for (int i = 0; i < ts.size(); i++) {
                long b0 = from + i * step;
                String at = keys.get(s) + " " + period + " bucket " + Instant.ofEpochMilli(b0);
                assertBucket(at, served.get("values"), i, values(keys.get(s), b0, Math.min(to, b0 + step)));
            }
        }
        return body;
    }

    /** The request for every series of this data, in key order, with every stat. */
    public String query(String start, String end, String period) {
        ObjectNode q = JSON.createObjectNode();
        ArrayNode list = q.putArray("series");
        synchronized (this) {
            series.values().forEach(s -> {
                ObjectNode n = list.addObject().put("name", s.name());
                ObjectNode dims = n.putObject("dims");
                new TreeMap<>(s.dims()).forEach(dims::put);
            });
        }
        q.put("start", start).put("end", end);
        if (period.startsWith("P")) {
            q.put("period", period);
        } else {
            q.put("period", Long.parseLong(period));
        }
        ArrayNode stats = q.putArray("stats");
        for (String st : STATS) {
            stats.add(st);
        }
        return q.toString();
    }

    /** {@code POST /query} through the handler; the answer must be a 200. */
    public static JsonNode post(QueryHandler handler, String body) {
        APIGatewayV2HTTPResponse resp =
                handler.handleRequest(ApiRequests.post(body), new TestContext("q", 30_000, 1024));
        assertThat(resp.getStatusCode()).as(resp.getBody()).isEqualTo(200);
        try {
            return JSON.readTree(resp.getBody());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void assertBucket(String at, JsonNode values, int i, List<Double> raw) {
        if (raw.isEmpty()) {
            for (String stat : STATS) {
                assertThat(values.get(stat).get(i).isNull())
                        .as(at + " " + stat + " of an empty bucket")
                        .isTrue();
            }
            return;
        }
        Exact want = Exact.of(raw);
        assertThat(values.get("count").get(i).asLong()).as(at + " count").isEqualTo(want.count());
        assertThat(values.get("sum").get(i).asDouble()).as(at + " sum").isEqualTo(want.sum());
        assertThat(values.get("min").get(i).asDouble()).as(at + " min").isEqualTo(want.min());
        assertThat(values.get("max").get(i).asDouble()).as(at + " max").isEqualTo(want.max());
        double avg = new BigDecimal(want.sum()).doubleValue() / want.count();
        assertThat(values.get("avg").get(i).asDouble()).as(at + " avg").isCloseTo(avg, within(Math.abs(avg) * 1e-9));
        for (String p : new String[] {"p50", "p90", "p99"}) {
            double q = Double.parseDouble(p.substring(1)) / 100;
            assertThat(values.get(p).get(i).asDouble())
                    .as(at + " " + p)
                    .isCloseTo(want.quantile(q), withinPercentage(1.0001));
        }
    }

    /** The direct computation: exact sum rounded once, and the sorted values for order statistics. */
    private record Exact(long count, double sum, double min, double max, List<Double> sorted) {
        static Exact of(List<Double> values) {
            StoredPartials.Summary s = StoredPartials.Summary.of(values);
            List<Double> sorted = new ArrayList<>(values);
            Collections.sort(sorted);
            return new Exact(s.count(), s.sum(), s.min(), s.max(), sorted);
        }

        /** Nearest rank, the API's definition: the value at rank ceil(q x count). */
        double quantile(double q) {
            return sorted.get((int) Math.max(1, Math.ceil(q * sorted.size() * (1 - 1e-12))) - 1);
        }
    }
}
