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
package dev.pulse.aggregate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.assertj.core.api.Assertions.tuple;

import com.datadoghq.sketch.ddsketch.DDSketch;
import dev.pulse.model.Datapoint;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BatchAggregatorTest {

    /** 2025-11-21T16:00:00Z, a minute boundary. */
    private static final long T0 = 1763740800000L;

    private static final String SHARD = "shardId-000000000003";

    private static Datapoint dp(String name, long ts, double value) {
        return new Datapoint(name, Map.of(), ts, value, null);
    }

    private static Datapoint dp(String name, Map<String, String> dims, long ts, double value, String unit) {
        return new Datapoint(name, dims, ts, value, unit);
    }

    private static Partial only(BatchAggregator agg, String seriesKey, long minute) {
        return agg.partials().stream()
                .filter(p -> p.seriesKey().equals(seriesKey) && p.minuteStart() == minute)
                .reduce((a, b) -> {
                    throw new AssertionError("two partials for " + seriesKey + " at " + minute);
                })
                .orElseThrow(() -> new AssertionError("no partial for " + seriesKey + " at " + minute));
    }

    @Test
    void addRecord_whenSameSeriesInTwoMinutes_keepsOnePartialPerSeriesAndMinute() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord(
                "1", List.of(dp("a", T0, 1), dp("a", T0 + 59_999, 2), dp("a", T0 + 60_000, 3), dp("b", T0 + 1, 4)));

        assertThat(agg.partials())
                .extracting(Partial::seriesKey, Partial::minuteStart, Partial::count)
                .containsExactly(tuple("a{}", T0, 2L), tuple("a{}", T0 + 60_000, 1L), tuple("b{}", T0, 1L));
        assertThat(agg.datapoints()).isEqualTo(4);
    }

    @Test
    void addRecord_whenDimensionsInDifferentOrder_mergesIntoOnePartial() {
        Map<String, String> xy = new LinkedHashMap<>();
        xy.put("x", "1");
        xy.put("y", "2");
        Map<String, String> yx = new LinkedHashMap<>();
        yx.put("y", "2");
        yx.put("x", "1");
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of(dp("m", xy, T0, 1, null)));
        agg.addRecord("2", List.of(dp("m", yx, T0 + 10, 2, null)));

        assertThat(agg.partials()).singleElement().satisfies(p -> {
            assertThat(p.seriesKey()).isEqualTo("m{x=1,y=2}");
            assertThat(p.count()).isEqualTo(2);
        });
    }

    @Test
    void addRecord_whenSeveralRecordsContribute_firstAndLastSequenceNameContributors() {
        String s1 = "49590338271490256608559692538361571095921575989136588898";
        String s2 = "49590338271490256608559692538361571095921575989136588899";
        String s3 = "49590338271490256608559692538361571095921575989136588900";
        String s4 = "49590338271490256608559692538361571095921575989136588901";
        String s5 = "49590338271490256608559692538361571095921575989136588902";
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord(s1, List.of(dp("a", T0, 1), dp("b", T0, 1)));
        agg.addRecord(s2, List.of(dp("a", T0 + 1, 1)));
        agg.addRecord(s3, List.of(dp("c", T0, 1)));
        agg.addRecord(s4, List.of(dp("b", T0 + 2, 1)));
        agg.addRecord(s5, List.of(dp("a", T0 + 60_000, 1)));

        assertThat(agg.partials())
                .extracting(Partial::seriesKey, Partial::minuteStart, Partial::firstSequence, Partial::lastSequence)
                .containsExactly(
                        tuple("a{}", T0, s1, s2),
                        tuple("b{}", T0, s1, s4),
                        tuple("c{}", T0, s3, s3),
                        tuple("a{}", T0 + 60_000, s5, s5));
        assertThat(agg.partials()).extracting(Partial::shardId).containsOnly(SHARD);
    }

    @Test
    void addRecord_whenRecordHasNoDatapoints_createsNoPartialAndDoesNotBecomeFirstContributor() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of());
        agg.addRecord("2", List.of(dp("a", T0, 1)));

        assertThat(agg.partials())
                .singleElement()
                .extracting(Partial::firstSequence)
                .isEqualTo("2");
        assertThat(agg.datapoints()).isEqualTo(1);
    }

    @Test
    void addRecord_whenSameBatchReplayed_producesSameKeysAndSummaries() {
        // A retried batch must name its partials exactly as the failed attempt did, or it would add to them.
        List<List<Datapoint>> records = List.of(
                List.of(dp("a", T0, 1), dp("b", T0 + 70_000, 2)),
                List.of(dp("a", T0 + 5, 3)),
                List.of(dp("b", T0 + 61_000, 4), dp("c", T0, 5)));
        BatchAggregator first = new BatchAggregator(SHARD);
        BatchAggregator retry = new BatchAggregator(SHARD);
        for (int i = 0; i < records.size(); i++) {
            first.addRecord(Integer.toString(100 + i), records.get(i));
            retry.addRecord(Integer.toString(100 + i), records.get(i));
        }

        assertThat(retry.partials())
                .extracting(
                        Partial::seriesKey,
                        Partial::minuteStart,
                        Partial::firstSequence,
                        Partial::lastSequence,
                        Partial::count,
                        Partial::sum)
                .containsExactlyElementsOf(first.partials().stream()
                        .map(p -> tuple(
                                p.seriesKey(),
                                p.minuteStart(),
                                p.firstSequence(),
                                p.lastSequence(),
                                p.count(),
                                p.sum()))
                        .toList());
    }

    @Test
    void addRecord_whenValuesAdded_summarisesCountSumMinMax() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of(dp("a", T0, 12.5), dp("a", T0 + 1, -3)));
        agg.addRecord("2", List.of(dp("a", T0 + 2, 0), dp("a", T0 + 3, 100.25), dp("a", T0 + 4, 7)));

        Partial p = only(agg, "a{}", T0);
        assertThat(p.count()).isEqualTo(5);
        assertThat(p.sum()).isEqualTo(116.75);
        assertThat(p.min()).isEqualTo(-3);
        assertThat(p.max()).isEqualTo(100.25);
        assertThat(p.sketch().getCount()).isEqualTo(5.0);
    }

    @Test
    void addRecord_whenSingleValue_minEqualsMaxEqualsSum() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of(dp("a", T0, -4.5)));

        Partial p = only(agg, "a{}", T0);
        assertThat(List.of(p.min(), p.max(), p.sum())).containsOnly(-4.5);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "1763740800000, 1763740800000",
        "1763740800001, 1763740800000",
        "1763740859999, 1763740800000",
        "1763740860000, 1763740860000",
        "1763740800123, 1763740800000",
        "0, 0",
        "59999, 0",
        "60000, 60000",
    })
    void addRecord_whenTimestampInsideMinute_floorsToMinuteStart(long ts, long minute) {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of(dp("a", ts, 1)));

        assertThat(agg.partials())
                .singleElement()
                .extracting(Partial::minuteStart)
                .isEqualTo(minute);
    }

    @Test
    void addRecord_whenFirstDatapointOfPartial_recordsNameAndDims() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord("1", List.of(dp("checkout.latency", Map.of("op", "Pay"), T0, 1, "Milliseconds")));

        Partial p = agg.partials().iterator().next();
        assertThat(p.name()).isEqualTo("checkout.latency");
        assertThat(p.dims()).isEqualTo(Map.of("op", "Pay"));
        assertThat(p.unit()).isEqualTo("Milliseconds");
    }

    @Test
    void addRecord_whenLaterDatapointsHaveNoUnit_keepsKnownUnit() {
        BatchAggregator agg = new BatchAggregator(SHARD);

        agg.addRecord(
                "1",
                List.of(
                        dp("a", Map.of(), T0, 1, null),
                        dp("a", Map.of(), T0, 1, "Count"),
                        dp("a", Map.of(), T0, 1, null)));

        assertThat(agg.partials()).singleElement().extracting(Partial::unit).isEqualTo("Count");
    }

    @Test
    void sketch_whenTenThousandValuesAcrossNineDecades_quantilesWithinOnePercentOfExact() {
        Random random = new Random(20251121);
        double[] values = new double[10_000];
        List<Datapoint> dps = new java.util.ArrayList<>(values.length);
        for (int i = 0; i < values.length; i++) {
            values[i] = Math.pow(10, -3 + 9 * random.nextDouble());
            dps.add(dp("lat", T0 + (i % 60_000), values[i]));
        }
        // The ends of the range must be present so the sketch really spans 1e-3..1e6.
        values[0] = 1e-3;
        values[1] = 1e6;
        dps.set(0, dp("lat", T0, 1e-3));
        dps.set(1, dp("lat", T0, 1e6));
        BatchAggregator agg = new BatchAggregator(SHARD);
        agg.addRecord("1", dps);
        Arrays.sort(values);

        DDSketch sketch = only(agg, "lat{}", T0).sketch();

        assertThat(sketch.getCount()).isEqualTo(10_000.0);
        for (double q : new double[] {0, 0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}) {
            double exact = values[(int) Math.floor(q * (values.length - 1))];
            assertThat(sketch.getValueAtQuantile(q))
                    .as("p%s", q * 100)
                    .isCloseTo(exact, offset(exact * Sketches.RELATIVE_ACCURACY));
        }
    }
}
