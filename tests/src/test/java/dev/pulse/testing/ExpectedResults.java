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
public record ExpectedResults(long now, int records, int poisonRecords, int skippedEvents, int datapoints,
        List<String> poisonSequenceNumbers, Map<String, Map<Long, Summary>> series) {

    public static Path repoRoot() {
        return Path.of(System.getProperty("pulse.repo.root", ".."));
    }

    public static Path event(String name) {
        return repoRoot().resolve("events").resolve(name);
    }

    public static ExpectedResults forEvent(String name) {
        try {
            JsonNode n = new ObjectMapper().readTree(repoRoot().resolve("events/expected").resolve(name).toFile());
            Map<String, Map<Long, Summary>> series = new TreeMap<>();
            n.get("series").properties().forEach(s -> {
                Map<Long, Summary> minutes = new TreeMap<>();
                s.getValue().properties().forEach(m -> minutes.put(Long.parseLong(m.getKey()),
                        new Summary(m.getValue().get("count").asLong(), m.getValue().get("sum").asDouble(),
                                m.getValue().get("min").asDouble(), m.getValue().get("max").asDouble())));
                series.put(s.getKey(), minutes);
            });
            List<String> poison = new ArrayList<>();
            n.get("poisonSequenceNumbers").forEach(p -> poison.add(p.asText()));
            return new ExpectedResults(n.get("now").asLong(), n.get("records").asInt(), n.get("poisonRecords").asInt(),
                    n.get("skippedEvents").asInt(), n.get("datapoints").asInt(), poison, series);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int partials() {
        return series.values().stream().mapToInt(Map::size).sum();
    }
}
