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
package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class HarnessTest {

    @ParameterizedTest
    @CsvSource({"50, 5", "90, 9", "99, 10", "100, 10", "10, 1", "1, 1"})
    void percentile_whenTenValues_isTheNearestRank(double p, double expected) {
        Samples s = Samples.of(10, 3, 7, 1, 2, 9, 4, 8, 6, 5);

        assertThat(s.percentile(p)).isEqualTo(expected);
    }

    @Test
    void spread_whenFormatted_showsMedianRangeAndCount() {
        assertThat(Samples.of(3.0, 1.0, 2.0).spread("%.1f")).isEqualTo("2.0 [1.0 .. 3.0] over 3");
    }

    @Test
    void line_whenTargetMissed_saysSo() {
        Result r = new Result("query", "12 ms", "N+1 480 ms", "40.0x", ">= 10x", false, List.of(), Map.of());

        assertThat(r.line()).isEqualTo("query: 12 ms (baseline N+1 480 ms, 40.0x); target >= 10x: MISSED");
    }

    @Test
    void splice_whenMarkersPresent_replacesOnlyTheGeneratedPart() {
        String doc =
                "# Benchmarks\n\nby hand before\n\n" + Report.BEGIN + "\nold\n" + Report.END + "\n\nby hand after\n";

        String out = Report.splice(doc, Report.BEGIN + "\nnew\n" + Report.END);

        assertThat(out)
                .isEqualTo("# Benchmarks\n\nby hand before\n\n" + Report.BEGIN + "\nnew\n" + Report.END
                        + "\n\nby hand after\n");
    }

    @Test
    void splice_whenNoMarkers_appendsTheGeneratedPart() {
        assertThat(Report.splice("# Benchmarks\n", "GEN")).isEqualTo("# Benchmarks\n\nGEN\n");
    }

    @Test
    void render_whenBenchmarksRan_tablesEachWallTimeAndTheTotal() {
        List<Result> results = List.of(
                new Result("query", "12 ms", "N+1 480 ms", "40.0x", "", null, List.of("detail"), Map.of()),
                new Result("cost", "0.1 WRU", "budgets", "16 of 16", "", null, List.of(), Map.of()));
        List<Benchmark> benches = BenchMain.select("query,cost");

        String md = Report.render("make bench", "m", "d", "c", benches, results, List.of(21.4, 455.0), 490.6);

        assertThat(md)
                .contains("| benchmark | wall time |\n|---|---:|\n| query | 21 s |\n| cost | 7 min 35 s |\n"
                        + "| **all of the above** (emulators included) | **8 min 11 s** |\n");
        assertThat(md.indexOf("| query | 21 s |"))
                .as("the table follows the printed lines, before the sections")
                .isGreaterThan(md.indexOf("query: 12 ms"))
                .isLessThan(md.indexOf("### query"));
    }

    @ParameterizedTest
    @CsvSource({"0.4, 0 s", "119.4, 119 s", "119.6, 2 min 0 s", "1234, 20 min 34 s"})
    void duration_whenFormatted_switchesToMinutesFromTwo(double seconds, String expected) {
        assertThat(Report.duration(seconds)).isEqualTo(expected);
    }

    @Test
    void writeJson_whenBenchmarksRan_recordsEachWallTimeAndTheTotal(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("b.json");
        Report.writeJson(
                file,
                "make bench",
                "m",
                "d",
                "c",
                List.of(new Result("query", "12 ms", "N+1", "40x", "", null, List.of(), Map.of("p99", 3.0))),
                List.of(21.44),
                30.06);

        JsonNode json = new ObjectMapper().readTree(file.toFile());
        assertThat(json.path("seconds").asDouble()).isEqualTo(30.1);
        assertThat(json.path("benchmarks").path("query").path("seconds").asDouble())
                .isEqualTo(21.4);
        assertThat(json.path("benchmarks")
                        .path("query")
                        .path("values")
                        .path("p99")
                        .asDouble())
                .isEqualTo(3.0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"--only nosuch", "--frobnicate", "--out", "--only ,"})
    void run_whenArgumentsAreWrong_printsUsageAndExits2(String args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();

        int status = BenchMain.run(
                args.split(" "),
                new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("usage: bench")
                .contains("ingest-decode");
    }

    @Test
    void select_whenNamesGiven_keepsTheirOrderWithoutDuplicates() {
        assertThat(BenchMain.select("query,ingest-decode,query").stream().map(Benchmark::name))
                .containsExactly("query", "ingest-decode");
    }

    @Test
    void times_whenLarge_dropsTheDecimal() {
        assertThat(Format.times(34.14)).isEqualTo("34.1x");
        assertThat(Format.times(1234.5)).isEqualTo("1,235x");
        assertThatThrownBy(() -> Samples.of(new double[0])).isInstanceOf(IllegalArgumentException.class);
    }
}
