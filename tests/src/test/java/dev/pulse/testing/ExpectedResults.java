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

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.testing.StoredPartials.Summary;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The expectations scripts/gen_events.py writes next to each event (events/expected/), computed from the
 * same data it encodes, so a test never re-implements the decoder to know the answer.
 */
public record ExpectedResults(
        long now,
        int records,
        int poisonRecords,
        int skippedEvents,
        int datapoints,
        List<String> poisonSequenceNumbers,
        Map<String, Map<Long, Summary>> series,
        Map<String, Map<Long, Map<String, Percentile>>> percentiles) {

    /**
     * A percentile the query API must answer: the exact order statistic of what the producer recorded (nearest
     * rank) and how far the answer may be from it by the documented accuracy (the sketch's 1% for raw samples;
     * for OTLP histograms the bucket's width or the exponential base as well, docs/otlp-input.md).
     */
    public record Percentile(double value, double tolerance) {}

    public static Path repoRoot() {
        return Path.of(System.getProperty("pulse.repo.root", ".."));
    }

    public static Path event(String name) {
        return repoRoot().resolve("events").resolve(name);
    }

    public static ExpectedResults forEvent(String name) {
        try {
            JsonNode n = new ObjectMapper()
                    .readTree(
                            repoRoot().resolve("events/expected").resolve(name).toFile());
            Map<String, Map<Long, Summary>> series = new TreeMap<>();
            Map<String, Map<Long, Map<String, Percentile>>> percentiles = new TreeMap<>();
            n.get("series").properties().forEach(s -> {
                Map<Long, Summary> minutes = new TreeMap<>();
                Map<Long, Map<String, Percentile>> ranks = new TreeMap<>();
                s.getValue().properties().forEach(m -> {
                    long minute = Long.parseLong(m.getKey());
                    JsonNode v = m.getValue();
                    minutes.put(
                            minute,
                            new Summary(
                                    v.get("count").asLong(),
                                    v.get("sum").asDouble(),
                                    v.get("min").asDouble(),
                                    v.get("max").asDouble()));
                    Map<String, Percentile> p = new TreeMap<>();
                    v.get("percentiles")
                            .properties()
                            .forEach(e -> p.put(
                                    e.getKey(),
                                    new Percentile(
                                            e.getValue().get("value").asDouble(),
                                            e.getValue().get("tolerance").asDouble())));
                    ranks.put(minute, p);
                });
                series.put(s.getKey(), minutes);
                percentiles.put(s.getKey(), ranks);
            });
            List<String> poison = new ArrayList<>();
            n.get("poisonSequenceNumbers").forEach(p -> poison.add(p.asText()));
            return new ExpectedResults(
                    n.get("now").asLong(),
                    n.get("records").asInt(),
                    n.get("poisonRecords").asInt(),
                    n.get("skippedEvents").asInt(),
                    n.get("datapoints").asInt(),
                    poison,
                    series,
                    percentiles);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int partials() {
        return series.values().stream().mapToInt(Map::size).sum();
    }
}
