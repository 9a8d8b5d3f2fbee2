package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CapacityDocTest {

    @TempDir
    Path dir;

    @Test
    void render_whenMeasuredInputs_showsEveryRateTermByTermBesideTheOldDesign() throws Exception {
        Map<String, Double> values = new LinkedHashMap<>(CostModelTest.inputs().byKey());

        String md = CapacityDoc.render(CostModelTest.inputs(), values, Prices.defaults(), CostBench.RATES, 12, "test.json");

        assertThat(md).contains("## 1,000 datapoints/s", "## 10,000 datapoints/s", "## 100,000 datapoints/s",
                "| partials | $164 |", "| hourly builds, writes | $657 |", "| daily builds, reads | $788 |",
                "| **$ per million datapoints** | 1.15 |", "## Bytes stored per series-hour, by item type",
                "## Measured inputs", "| `--price-ddb-million-wru` | 0.625 |", "## How the figures come about");
    }

    @Test
    void run_whenPricesOverridden_writesThemWithTheirDefaults() throws Exception {
        Path json = dir.resolve("bench.json");
        StringBuilder values = new StringBuilder();
        CostModelTest.inputs().byKey().forEach((k, v) -> values.append(values.isEmpty() ? "" : ",").append('"').append(k)
                .append("\":").append(v));
        Files.writeString(json, "{\"command\":\"make bench ONLY=cost\",\"date\":\"2026-11-24T00:00:00Z\",\"commit\":\"abc\","
                + "\"benchmarks\":{\"cost\":{\"values\":{" + values + "}}}}");
        Path out = dir.resolve("capacity.md");

        int status = CapacityDoc.run(new String[] {"--bench", json.toString(), "--out", out.toString(),
            "--price-ddb-million-wru", "0.5", "--rates", "2000"}, quiet(), quiet());

        assertThat(status).isZero();
        assertThat(Files.readString(out)).contains("## 2,000 datapoints/s", "| `--price-ddb-million-wru` | 0.5 (default 0.625) |",
                "make bench ONLY=cost, 2026-11-24T00:00:00Z, commit abc");
    }

    @Test
    void run_whenTheFiguresHoldNoCostRun_leavesTheDocumentAlone() throws Exception {
        Path json = dir.resolve("bench.json");
        Files.writeString(json, "{\"benchmarks\":{\"query\":{\"values\":{}}}}");
        Path out = dir.resolve("capacity.md");
        ByteArrayOutputStream said = new ByteArrayOutputStream();

        int status = CapacityDoc.run(new String[] {"--bench", json.toString(), "--out", out.toString()},
                new PrintStream(said, true, StandardCharsets.UTF_8), quiet());

        assertThat(status).isZero();
        assertThat(out).doesNotExist();
        assertThat(said.toString(StandardCharsets.UTF_8)).contains("holds no cost figures");
    }

    @Test
    void run_whenAnUnknownPrice_exits2WithTheUsage() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = CapacityDoc.run(new String[] {"--price-nosuch", "1"}, quiet(), new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("no price parameter 'nosuch'", "--price-ddb-million-wru");
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
