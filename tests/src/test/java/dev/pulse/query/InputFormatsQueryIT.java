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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.amazonaws.services.lambda.runtime.events.APIGatewayV2HTTPResponse;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.amazonaws.services.lambda.runtime.tests.EventLoader;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.testing.ApiRequests;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.ExpectedResults;
import dev.pulse.testing.ExpectedResults.Percentile;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.StoredPartials.Summary;
import dev.pulse.testing.TestContext;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Each input format, from its fixture in events/ (made by a real producer where one exists: the KPL aggregates by
 * aws-kinesis-agg, the OTLP requests by the OpenTelemetry Python SDK's encoders), through ingest and back out of the query API: the series the catalog lists and every minute's
 * count, sum, min and max are what the producer sent, and its p50, p90 and p99 within the documented accuracy
 * (events/expected/ holds the exact order statistics and each one's tolerance), first from the partials, then from
 * the built rollups.
 */
@ExtendWith(Emulators.class)
class InputFormatsQueryIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long MINUTE = 60_000L;
    private static final List<String> PERCENTILES = List.of("p50", "p90", "p99");

    @ParameterizedTest
    @ValueSource(
            strings = {
                "ingest-kinesis-native.json",
                "ingest-kinesis-cwlogs.json",
                "ingest-kinesis-kpl.json",
                "ingest-kinesis-otlp.json"
            })
    void query_whenFormatIngested_answersEveryMinuteAsTheProducerSent(String eventFile) throws Exception {
        ExpectedResults expected = ExpectedResults.forEvent(eventFile);
        KinesisEvent event =
                EventLoader.loadKinesisEvent(ExpectedResults.event(eventFile).toString());
        try (Pipeline p = new Pipeline("pulse-formats", Instant.ofEpochMilli(expected.now()), Duration.ofDays(1))) {
            p.ingest(event.getRecords());

            JsonNode listed = catalog(p.queryHandler());
            assertThat(listed.findValuesAsText("key"))
                    .containsExactlyInAnyOrderElementsOf(expected.series().keySet());
            assertAnswers(p.queryHandler(), listed, expected, "from the partials");

            p.clock().advance(Duration.ofHours(3)); // every minute's hour closed, past the build grace
            p.compactAll();
            assertAnswers(p.queryHandler(), listed, expected, "from the hourly rollups");
        }
    }

    /** Every series of {@code listed}, each minute of the expected range, against the expectations. */
    private static void assertAnswers(QueryHandler handler, JsonNode listed, ExpectedResults expected, String level)
            throws Exception {
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (Map<Long, Summary> minutes : expected.series().values()) {
            from = Math.min(from, ((TreeMap<Long, Summary>) minutes).firstKey());
            to = Math.max(to, ((TreeMap<Long, Summary>) minutes).lastKey() + MINUTE);
        }
        ObjectNode q = JSON.createObjectNode();
        ArrayNode series = q.putArray("series");
        for (JsonNode s : listed) {
            series.addObject().put("name", s.get("name").asText()).set("dims", s.get("dims"));
        }
        q.put("start", Instant.ofEpochMilli(from).toString())
                .put("end", Instant.ofEpochMilli(to).toString())
                .put("period", 60);
        ArrayNode stats = q.putArray("stats").add("count").add("sum").add("min").add("max");
        PERCENTILES.forEach(stats::add);
        APIGatewayV2HTTPResponse r =
                handler.handleRequest(ApiRequests.post(q.toString()), new TestContext("q", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        JsonNode body = JSON.readTree(r.getBody());
        assertThat(body.get("unprocessed")).isEmpty();

        List<String> answered = new ArrayList<>();
        for (JsonNode s : body.get("series")) {
            String key = s.get("key").asText();
            answered.add(key);
            Map<Long, Summary> want = expected.series().get(key);
            JsonNode values = s.get("values");
            for (int i = 0; i < body.get("timestamps").size(); i++) {
                long minute = body.get("timestamps").get(i).asLong();
                Summary w = want.get(minute);
                String at = key + " at " + Instant.ofEpochMilli(minute) + " " + level;
                if (w == null) {
                    assertThat(values.get("count").get(i).isNull())
                            .as(at + ": a minute without data")
                            .isTrue();
                    continue;
                }
                assertThat(values.get("count").get(i).asLong())
                        .as(at + " count")
                        .isEqualTo(w.count());
                assertThat(values.get("sum").get(i).asDouble()).as(at + " sum").isEqualTo(w.sum());
                assertThat(values.get("min").get(i).asDouble()).as(at + " min").isEqualTo(w.min());
                assertThat(values.get("max").get(i).asDouble()).as(at + " max").isEqualTo(w.max());
                for (String p : PERCENTILES) {
                    Percentile bound =
                            expected.percentiles().get(key).get(minute).get(p);
                    assertThat(values.get(p).get(i).asDouble())
                            .as(at + " " + p)
                            .isCloseTo(bound.value(), within(bound.tolerance() * (1 + 1e-9)));
                }
            }
        }
        assertThat(answered)
                .containsExactlyInAnyOrderElementsOf(expected.series().keySet());
    }

    /** The catalog's series of every metric name, as GET /series lists them. */
    private static JsonNode catalog(QueryHandler handler) throws Exception {
        ArrayNode all = JSON.createArrayNode();
        for (JsonNode name : get(handler, Map.of("prefix", "")).get("names")) {
            get(handler, Map.of("name", name.asText())).get("series").forEach(all::add);
        }
        return all;
    }

    private static JsonNode get(QueryHandler handler, Map<String, String> params) throws Exception {
        APIGatewayV2HTTPResponse r = handler.handleRequest(
                ApiRequests.request("GET", "/series", params), new TestContext("s", 30_000, 1024));
        assertThat(r.getStatusCode()).as(r.getBody()).isEqualTo(200);
        return JSON.readTree(r.getBody());
    }
}
