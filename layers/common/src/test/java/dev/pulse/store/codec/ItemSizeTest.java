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
package dev.pulse.store.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.datadoghq.sketch.ddsketch.DDSketch;
import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Partial;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.model.SeriesKey;
import dev.pulse.store.schema.KeyScheme;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Every item is known to fit DynamoDB's limits before it is written: the largest partial, hourly and daily rollup an
 * accepted datapoint can produce (longest series key and unit, the widest sketch with counts near 2^53, the most
 * exact-sum partials) are measured here against 400 KB and the key limits.
 */
class ItemSizeTest {

    private static final long T0 = 1763740800000L;
    private static final int DYNAMODB_PK_BYTES = 2048;
    private static final int DYNAMODB_SK_BYTES = 1024;

    /** Name and dimensions whose series key is as long as the validator allows (1,024 bytes of UTF-8 at most). */
    private static String longestName() {
        return "n".repeat(DatapointValidator.MAX_NAME_LENGTH);
    }

    private static Map<String, String> longestDims() {
        Map<String, String> dims = new LinkedHashMap<>();
        dims.put("k".repeat(100), "é".repeat(120)); // 2 bytes each in UTF-8
        dims.put("l".repeat(100), "v".repeat(180));
        dims.put("m".repeat(60), "x".repeat(78));
        return dims;
    }

    /** The widest sketch: every bin of both signs used, each count near 2^53 (the longest varints). */
    private static DDSketch widestSketch() {
        DDSketch s = Sketches.create();
        double gamma = (1 + Sketches.RELATIVE_ACCURACY) / (1 - Sketches.RELATIVE_ACCURACY); // one bin apart
        for (int i = 0; i < Sketches.MAX_BINS + 100; i++) {
            double v = DatapointValidator.MAX_MAGNITUDE / Math.pow(gamma, i);
            s.accept(v, (1L << 52) + i);
            s.accept(-v, (1L << 52) + i);
        }
        s.accept(0.0, 1L << 52);
        return s;
    }

    /** The most partials a sum can have: one per 53-bit band of the exponent range the validator allows. */
    private static ExactSum longestSum() {
        ExactSum sum = new ExactSum();
        for (int e = -330; e <= 330; e += 54) {
            sum.add(Math.scalb(1.0, e));
        }
        return sum;
    }

    private static Summary worstSummary() {
        DDSketch sketch = widestSketch();
        return new Summary((long) sketch.getCount(), longestSum(), -1e100, 1e100, sketch);
    }

    @Test
    void widestSketch_encodesToAbout36Kilobytes() {
        int bytes = Sketches.serialize(widestSketch()).length;

        assertThat(bytes).isBetween(30_000, 40_000); // measured: the bound every size below is built on
    }

    @Test
    void partial_whenEverythingIsAtItsLimit_fitsWithinMaxPartialBytesAndKeyLimits() {
        String seriesKey = SeriesKey.of(longestName(), longestDims());
        assertThat(seriesKey.getBytes(StandardCharsets.UTF_8).length)
                .isBetween(1_000, DatapointValidator.MAX_SERIES_KEY_BYTES);
        BatchAggregator agg = new BatchAggregator("shardId-000000000123");
        agg.addRecord(
                "49" + "9".repeat(54),
                List.of(Datapoint.preAggregated(longestName(), longestDims(), T0, "€".repeat(64), worstSummary())));
        Partial a = agg.partials().iterator().next();

        Map<String, AttributeValue> item = PartialItems.partial(a, 86_400L * 400, Long.MAX_VALUE);

        int bytes = PartialItems.itemBytes(item);
        assertThat(bytes).isLessThanOrEqualTo(PartialItems.MAX_PARTIAL_BYTES).isLessThan(SummaryCodec.MAX_ITEM_BYTES);
        assertThat(item.get(KeyScheme.PK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_PK_BYTES);
        assertThat(item.get(KeyScheme.SK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_SK_BYTES);
        Map<String, AttributeValue> catalog = PartialItems.catalog(a.seriesKey(), a.name(), a.dims());
        assertThat(catalog.get(KeyScheme.SK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_SK_BYTES);
        assertThat(catalog.get(KeyScheme.PK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_PK_BYTES);
        assertThat(PartialItems.itemBytes(catalog)).isLessThan(SummaryCodec.MAX_ITEM_BYTES);
    }

    @ParameterizedTest
    @ValueSource(ints = {60, 24, 1})
    void rollup_whenEveryBucketHoldsTheWidestSketch_fitsInOneItem(int buckets) {
        String seriesKey = SeriesKey.of(longestName(), longestDims());
        SortedMap<Integer, Summary> summaries = new TreeMap<>();
        for (int i = 0; i < buckets; i++) {
            summaries.put(i, worstSummary());
        }

        Map<String, AttributeValue> hourly = RollupItems.hourly(seriesKey, T0, summaries, 86_400L * 400);
        Map<String, AttributeValue> daily = RollupItems.daily(seriesKey, T0, summaries, 86_400L * 400);

        assertThat(PartialItems.itemBytes(hourly)).isLessThan(SummaryCodec.MAX_ITEM_BYTES);
        assertThat(PartialItems.itemBytes(daily)).isLessThan(SummaryCodec.MAX_ITEM_BYTES);
        assertThat(hourly.get(KeyScheme.PK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_PK_BYTES);
        assertThat(daily.get(KeyScheme.PK).s().getBytes(StandardCharsets.UTF_8).length)
                .isLessThanOrEqualTo(DYNAMODB_PK_BYTES);
    }

    @Test
    void encodeBuckets_whenSketchesExceedTheirShare_keepsCountMinMaxAndHighPercentiles() {
        Summary s = worstSummary();
        SortedMap<Integer, Summary> summaries = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            summaries.put(i, s);
        }

        Summary back = SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(summaries), true)
                .get(59);

        assertThat(back.count()).isEqualTo(s.count());
        assertThat(back.min()).isEqualTo(s.min());
        assertThat(back.max()).isEqualTo(s.max());
        assertThat(back.sum()).isEqualTo(s.sum());
        assertThat(back.encodedSketch().length).isLessThanOrEqualTo(SummaryCodec.ROLLUP_SKETCH_BYTES / 60);
        // The highest bins are kept: the top percentile stays within the sketch's accuracy.
        assertThat(back.quantile(0.999)).isCloseTo(s.quantile(0.999), within(Math.abs(s.quantile(0.999)) * 0.02));
    }

    @Test
    void encodeBuckets_whenSketchesFitTheirShare_storesThemUnchanged() {
        Summary s = new Summary();
        for (int i = 1; i <= 1000; i++) {
            s.add(i * 0.37);
        }
        SortedMap<Integer, Summary> summaries = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            summaries.put(i, s);
        }

        Summary back = SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(summaries), true)
                .get(0);

        assertThat(back.encodedSketch()).isEqualTo(Sketches.serialize(s.sketch()));
    }

    @Test
    void serializeWithin_whenCollapsing_keepsEachValueOnItsSignAndTheTopWithinAccuracy() {
        DDSketch positive = Sketches.create();
        for (int i = 0; i < 3000; i++) {
            positive.accept(Math.pow(1.0202, i - 1500.0));
        }
        DDSketch back = Sketches.deserialize(Sketches.serializeWithin(positive, 1_000));

        assertThat(back.getCount()).isEqualTo(positive.getCount());
        assertThat(back.getValueAtQuantile(0)).isPositive();
        assertThat(back.getValueAtQuantile(0.99))
                .isCloseTo(positive.getValueAtQuantile(0.99), within(positive.getValueAtQuantile(0.99) * 0.02));
    }

    @Test
    void serializeWithin_isDeterministic() {
        assertThat(Sketches.serializeWithin(widestSketch(), 6_000))
                .isEqualTo(Sketches.serializeWithin(widestSketch(), 6_000));
    }
}
