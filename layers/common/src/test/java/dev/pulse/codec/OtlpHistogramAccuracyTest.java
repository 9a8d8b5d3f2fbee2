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
package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.AggregationTemporality;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogram;
import io.opentelemetry.proto.metrics.v1.ExponentialHistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Histogram;
import io.opentelemetry.proto.metrics.v1.HistogramDataPoint;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint;
import io.opentelemetry.proto.metrics.v1.SummaryDataPoint.ValueAtQuantile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The documented percentile accuracy of OTLP histograms (docs/otlp-input.md, "Histogram accuracy"): histograms built
 * here from recorded values, decoded by the real decoder, stored and merged the way the query API does it
 * ({@link Sketches#serialize}, {@link Summary#withEncodedSketch}, {@link Summary#merge}) and asked
 * {@link Summary#quantile}, the call behind the query API's {@code pNN}. Each answer is held against the exact
 * nearest-rank order statistic of the recorded values and the bound the docs give, so the docs' promise is what a
 * user gets. The last tests hold the committed fixtures' expectations (events/expected) to the same bounds.
 */
class OtlpHistogramAccuracyTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final long NOW_NS = NOW_MS * 1_000_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));
    static final double[] QS = {0.5, 0.9, 0.99, 0.999};
    static final double SKETCH = Sketches.RELATIVE_ACCURACY;

    // ---------------------------------------------------------------- building and decoding

    /** An explicit-bucket delta point of {@code values} (OTLP buckets are upper-inclusive: (b[i-1], b[i]]). */
    static HistogramDataPoint.Builder explicit(double[] bounds, double[] values, boolean withMin, boolean withMax) {
        long[] counts = new long[bounds.length + 1];
        for (double v : values) {
            counts[bucketOf(bounds, v)]++;
        }
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(values.length)
                .setSum(Arrays.stream(values).sum());
        Arrays.stream(bounds).forEach(p::addExplicitBounds);
        Arrays.stream(counts).forEach(p::addBucketCounts);
        if (withMin) {
            p.setMin(Arrays.stream(values).min().orElseThrow());
        }
        if (withMax) {
            p.setMax(Arrays.stream(values).max().orElseThrow());
        }
        return p;
    }

    static int bucketOf(double[] bounds, double v) {
        int i = 0;
        while (i < bounds.length && v > bounds[i]) {
            i++;
        }
        return i;
    }

    static Metric histogram(HistogramDataPoint.Builder p) {
        return Metric.newBuilder()
                .setName("latency")
                .setUnit("ms")
                .setHistogram(Histogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(p))
                .build();
    }

    static Metric exponential(ExponentialHistogramDataPoint.Builder p) {
        return Metric.newBuilder()
                .setName("size")
                .setUnit("By")
                .setExponentialHistogram(ExponentialHistogram.newBuilder()
                        .setAggregationTemporality(AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA)
                        .addDataPoints(p))
                .build();
    }

    static byte[] request(Metric m) {
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .addScopeMetrics(ScopeMetrics.newBuilder().addMetrics(m)))
                .build()
                .toByteArray();
    }

    static List<Datapoint> decode(Metric m) throws DecodeException {
        return DECODER.decode(request(m)).datapoints();
    }

    /** Decoded, then stored and read back as the query API reads it (encoded sketch merged into a fresh summary). */
    static Summary stored(Metric... records) throws DecodeException {
        Summary merged = new Summary();
        for (Metric m : records) {
            Summary s = decode(m).get(0).summary();
            merged.merge(Summary.withEncodedSketch(
                    s.count(), s.exactSum(), s.min(), s.max(), Sketches.serialize(s.sketch())));
        }
        return merged;
    }

    /** Bucket index of {@code v > 0} at {@code scale} (upper-inclusive), exact for powers of two. */
    static int expIndex(double v, int scale) {
        int e = Math.getExponent(v);
        if (v == Math.scalb(1.0, e)) {
            // An exact power of two 2^e is in bucket ceil(e * 2^scale) - 1 (on its upper bound when that is whole).
            return scale >= 0 ? e * (1 << scale) - 1 : Math.floorDiv(e - 1, 1 << -scale);
        }
        return (int) Math.ceil(Math.log(v) / Math.log(2) * Math.scalb(1.0, scale)) - 1;
    }

    /** An exponential delta point of {@code values} at {@code scale}, |v| <= zeroThreshold in the zero bucket. */
    static ExponentialHistogramDataPoint.Builder expo(
            int scale, double zeroThreshold, double[] values, boolean withMinMax) {
        TreeMap<Integer, Long> pos = new TreeMap<>();
        TreeMap<Integer, Long> neg = new TreeMap<>();
        long zero = 0;
        for (double v : values) {
            if (Math.abs(v) <= zeroThreshold) {
                zero++;
            } else {
                (v > 0 ? pos : neg).merge(expIndex(Math.abs(v), scale), 1L, Long::sum);
            }
        }
        ExponentialHistogramDataPoint.Builder p = ExponentialHistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setScale(scale)
                .setZeroCount(zero)
                .setZeroThreshold(zeroThreshold)
                .setCount(values.length)
                .setSum(Arrays.stream(values).sum())
                .setPositive(buckets(pos))
                .setNegative(buckets(neg));
        if (withMinMax) {
            p.setMin(Arrays.stream(values).min().orElseThrow())
                    .setMax(Arrays.stream(values).max().orElseThrow());
        }
        return p;
    }

    static ExponentialHistogramDataPoint.Buckets.Builder buckets(TreeMap<Integer, Long> m) {
        ExponentialHistogramDataPoint.Buckets.Builder b = ExponentialHistogramDataPoint.Buckets.newBuilder();
        if (m.isEmpty()) {
            return b;
        }
        b.setOffset(m.firstKey());
        for (int i = m.firstKey(); i <= m.lastKey(); i++) {
            b.addBucketCounts(m.getOrDefault(i, 0L));
        }
        return b;
    }

    // ---------------------------------------------------------------- the truth and the documented bounds

    static long rank(double q, long n) {
        return Math.max(1, (long) Math.ceil(q * n - 1e-9));
    }

    static double nearestRank(double[] sorted, double q) {
        return sorted[(int) rank(q, sorted.length) - 1];
    }

    /**
     * The documented bound for explicit buckets: half the width of the bucket that holds {@code v}, narrowed by the
     * exact min and max, plus the sketch's 1% (of the larger end, the most the sketch can move a value in it); 0
     * (exact) at the lowest and highest rank.
     */
    static double explicitBound(double[] bounds, double[] sorted, double q) {
        long r = rank(q, sorted.length);
        if (r == 1 || r == sorted.length) {
            return 0;
        }
        double v = nearestRank(sorted, q);
        int b = bucketOf(bounds, v);
        double lo = Math.max(b == 0 ? Double.NEGATIVE_INFINITY : bounds[b - 1], sorted[0]);
        double hi = Math.min(b == bounds.length ? Double.POSITIVE_INFINITY : bounds[b], sorted[sorted.length - 1]);
        return (hi - lo) / 2 + SKETCH * Math.max(Math.abs(lo), Math.abs(hi));
    }

    /** The documented bound for exponential buckets: sqrt(base) - 1 relative, plus 1%; exact at the ends. */
    static double exponentialBound(int scale, double[] sorted, double q) {
        long r = rank(q, sorted.length);
        if (r == 1 || r == sorted.length) {
            return 0;
        }
        double base = Math.pow(2, Math.scalb(1.0, -scale));
        return Math.abs(nearestRank(sorted, q)) * (Math.sqrt(base) - 1 + SKETCH);
    }

    static double[] sorted(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        return s;
    }

    static double[] repeat(double v, int n) {
        double[] a = new double[n];
        Arrays.fill(a, v);
        return a;
    }

    static double[] concat(double[]... parts) {
        return Arrays.stream(parts).flatMapToDouble(Arrays::stream).toArray();
    }

    /** Every pNN of {@link #QS} within the explicit-bucket bound; the failures listed otherwise. */
    static List<String> explicitViolations(double[] bounds, double[] values, Summary s) {
        double[] sorted = sorted(values);
        List<String> out = new ArrayList<>();
        for (double q : QS) {
            double want = nearestRank(sorted, q);
            double bound = explicitBound(bounds, sorted, q);
            double got = s.quantile(q);
            if (!(Math.abs(got - want) <= bound * (1 + 1e-9) + 1e-12)) {
                out.add("q=" + q + " want " + want + " got " + got + " bound " + bound);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- explicit buckets

    /**
     * 89 values of 1 and 11 of 100, all in the bucket (0, 1000], narrowed to [1, 100]: they enter at the narrowed
     * bucket's middle, 50.5, so the p90 and p99 (true 100) are within the documented half width 49.5 (+1%). At their
     * mean, 11.89, they would be 88 off.
     */
    @Test
    void quantile_whenAllValuesInOneExplicitBucket_isWithinHalfTheNarrowedWidth() throws Exception {
        double[] bounds = {0, 1000};
        double[] values = concat(repeat(1, 89), repeat(100, 11));
        Summary s = stored(histogram(explicit(bounds, values, true, true)));

        assertThat(explicitBound(bounds, sorted(values), 0.9)).isEqualTo(50.5);
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    /** Count, sum, min and max without buckets: the values enter at the middle of [min, max], not at the mean. */
    @Test
    void quantile_whenHistogramHasNoBucketCounts_isWithinHalfOfMinToMax() throws Exception {
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(100)
                .setSum(89 + 1100)
                .setMin(1)
                .setMax(100);
        Summary s = stored(histogram(p));
        assertThat(Math.abs(100 - s.quantile(0.9))).isLessThanOrEqualTo(49.5 + 1);
        assertThat(Math.abs(1 - s.quantile(0.5))).isLessThanOrEqualTo(49.5 + 1);
    }

    /**
     * A documented limit (docs/otlp-input.md, "Histogram accuracy", "The sketch's range", and docs/design.md): the
     * sketch keeps at most 2,048 bins, about a 6e17 ratio between the smallest and largest value at 1%; below that the
     * lowest values share a bin, so a percentile among them is answered too high.
     */
    @Test
    void quantile_whenValuesSpanMoreThanTheSketchsRange_answersTheLowestValuesTooHigh() throws Exception {
        // Values 1e-20 .. 1e20 (41 decades, one value per decade), scale 0: 133 buckets, within an SDK's default 160.
        // Inside the range the bound is sqrt(2)-1 = 41% relative plus the sketch's 1%; the sketch's 2,048 bins
        // (Sketches.MAX_BINS) at 1% cover about 6e17, so the lowest bins are collapsed into one and the p50 (true 1.0)
        // is answered at the lowest kept bin, about 1e3. The same limit applies to native samples spanning > 6e17.
        double[] values = new double[41];
        for (int i = 0; i < 41; i++) {
            values[i] = Math.pow(10, i - 20);
        }
        Summary s = stored(exponential(expo(0, 0, values, true)));
        double[] sorted = sorted(values);
        double want = nearestRank(sorted, 0.5);
        assertThat(want).isEqualTo(1.0);
        double got = s.quantile(0.5);
        assertThat(got).isGreaterThan(100 * want); // documented: within 42% of 1.0
        assertThat(Math.abs(got - want)).isGreaterThan(exponentialBound(0, sorted, 0.5) * 100);
        // The p90 (true 1e16, in the kept range) still holds.
        assertThat(Math.abs(s.quantile(0.9) - nearestRank(sorted, 0.9)))
                .isLessThanOrEqualTo(exponentialBound(0, sorted, 0.9));
    }

    /**
     * Ranks are computed in doubles, exact only up to 2^53: two buckets of 2^61 values each would answer the p50 from
     * the wrong bucket. A point of more than 2^53 values is poison with the reason; 2^40 a bucket is answered exactly.
     */
    @Test
    void decode_whenPointCountAbove2To53_isPoisonAndBelowItIsAnswered() throws Exception {
        long half = 1L << 61;
        HistogramDataPoint.Builder p = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(2 * half)
                .setSum(half * 1001.0)
                .setMin(1)
                .setMax(1000)
                .addExplicitBounds(0)
                .addExplicitBounds(10)
                .addBucketCounts(0)
                .addBucketCounts(half)
                .addBucketCounts(half);
        assertThatThrownBy(() -> decode(histogram(p)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("2^53");
        ExponentialHistogramDataPoint.Builder e =
                expo(0, 0, new double[] {1, 2}, true).setCount((1L << 53) + 1).setZeroCount((1L << 53) - 1);
        assertThatThrownBy(() -> decode(exponential(e)))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("2^53");

        long small = 1L << 40;
        HistogramDataPoint.Builder ok = HistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setCount(2 * small)
                .setSum(small * 1001.0)
                .setMin(1)
                .setMax(1000)
                .addExplicitBounds(0)
                .addExplicitBounds(10)
                .addBucketCounts(0)
                .addBucketCounts(small)
                .addBucketCounts(small);
        assertThat(stored(histogram(ok)).quantile(0.5)).isCloseTo(5.5, org.assertj.core.data.Offset.offset(0.06));
    }

    @Test
    void decode_whenExplicitHistogram_keepsCountSumMinAndMaxExact() throws Exception {
        double[] bounds = {0, 5, 10, 25, 50, 75, 100, 250, 500, 1000};
        double[] values = {3, 7, 12, 15, 40, 250, 0.1, 999.5, 1e6};
        Summary s = stored(histogram(explicit(bounds, values, true, true)));
        assertThat(s.count()).isEqualTo(values.length);
        assertThat(s.sum()).isEqualTo(Arrays.stream(values).sum());
        assertThat(s.min()).isEqualTo(0.1);
        assertThat(s.max()).isEqualTo(1e6);
        assertThat(s.quantile(0.0001)).isEqualTo(0.1);
        assertThat(s.quantile(1.0)).isEqualTo(1e6);
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    @Test
    void quantile_whenValuesLieExactlyOnBucketBounds_isWithinTheBucketThatHoldsThem() throws Exception {
        // Upper-inclusive buckets: 5 is in (0, 5], 10 in (5, 10]. Answers stay within the bucket that holds them.
        double[] bounds = {0, 5, 10, 25, 50};
        double[] values = {0, 5, 5, 5, 10, 10, 10, 25, 25, 25, 50, 50};
        Summary s = stored(histogram(explicit(bounds, values, true, true)));
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    @Test
    void quantile_whenValuesAndBoundsAreNegative_isWithinTheBound() throws Exception {
        double[] bounds = {-1000, -100, -10, -1, 0, 1, 10};
        double[] values = {-5000, -900, -450, -450, -99, -50, -9.5, -2, -0.5, 0, 0.5, 3, 9, 20, 20, 20};
        Summary s = stored(histogram(explicit(bounds, values, true, true)));
        assertThat(s.min()).isEqualTo(-5000);
        assertThat(s.max()).isEqualTo(20);
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    @Test
    void quantile_whenMinNarrowsABucketToZeroWidth_isThatValue() throws Exception {
        // min = 10 sits on the upper bound of (5, 10]: that bucket narrows to [10, 10]; max = 25 closes (10, 25].
        double[] bounds = {5, 10, 25, 50};
        double[] values = {10, 10, 10, 10, 10, 10, 25, 25};
        Summary s = stored(histogram(explicit(bounds, values, true, true)));
        assertThat(s.quantile(0.5)).isCloseTo(10.0, org.assertj.core.data.Offset.offset(0.1));
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    @Test
    void quantile_whenAllValuesInTheOverflowBucket_isWithinTheBound() throws Exception {
        // All values in (1000, +inf): one bucket, at the mean (3333), narrowed [2000, 5000]; p50 (3000) within 1500.
        double[] bounds = {0, 10, 1000};
        double[] values = {2000, 3000, 5000};
        Summary s = stored(histogram(explicit(bounds, values, true, true)));
        assertThat(explicitViolations(bounds, values, s)).isEmpty();
    }

    @Test
    void quantile_whenMinAndMaxAbsent_entersOpenBucketsAtTheirFiniteEdge() throws Exception {
        // Without min and max the open buckets enter at their finite edge and min/max come from the sketch (documented
        // as an estimate); inner buckets stay within half their width.
        double[] bounds = {0, 10, 20, 30};
        double[] values = {-7, 2, 4, 12, 14, 16, 18, 22, 99};
        Summary s = stored(histogram(explicit(bounds, values, false, false)));
        assertThat(s.min()).isCloseTo(0.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(s.max()).isCloseTo(30.0, org.assertj.core.data.Offset.offset(0.3));
        assertThat(s.quantile(0.5)).isCloseTo(15.0, org.assertj.core.data.Offset.offset(0.15 + 1e-9)); // true 14
    }

    @Test
    void quantile_whenRandomExplicitHistogramsOfUpTo400Buckets_isWithinTheBound() throws Exception {
        // 2000 random histograms (1..400 bounds, signed, log-spread values, ties on bounds, >= 2 non-empty buckets,
        // the documented bound's precondition) against the documented bound at p50/p90/p99/p99.9.
        Random rnd = new Random(15);
        int checked = 0;
        for (int t = 0; t < 2000; t++) {
            double[] bounds = randomBounds(rnd);
            double[] values = randomValues(rnd, bounds);
            if (Arrays.stream(values)
                            .mapToInt(v -> bucketOf(bounds, v))
                            .distinct()
                            .count()
                    < 2) {
                continue;
            }
            Summary s = stored(histogram(explicit(bounds, values, true, true)));
            assertThat(explicitViolations(bounds, values, s))
                    .as("bounds %s values %s", Arrays.toString(bounds), Arrays.toString(values))
                    .isEmpty();
            checked++;
        }
        assertThat(checked).isGreaterThan(1500);
    }

    @Test
    void quantile_whenDeltaPointsOfOneLayoutMerged_isWithinTheBoundOfTheMergedMinAndMax() throws Exception {
        // Several delta exports of one series in one minute (same bucket layout, each with >= 2 non-empty buckets),
        // merged as the query merges them: within half the bucket narrowed by the merged min and max.
        Random rnd = new Random(1515);
        int checked = 0;
        for (int t = 0; t < 500; t++) {
            double[] bounds = randomBounds(rnd);
            int records = 2 + rnd.nextInt(6);
            List<Metric> ms = new ArrayList<>();
            double[] all = new double[0];
            for (int r = 0; r < records; r++) {
                double[] values = randomValues(rnd, bounds);
                if (Arrays.stream(values)
                                .mapToInt(v -> bucketOf(bounds, v))
                                .distinct()
                                .count()
                        < 2) {
                    continue;
                }
                ms.add(histogram(explicit(bounds, values, true, true)));
                all = concat(all, values);
            }
            if (ms.size() < 2) {
                continue;
            }
            Summary s = stored(ms.toArray(Metric[]::new));
            assertThat(s.count()).isEqualTo(all.length);
            assertThat(s.min()).isEqualTo(Arrays.stream(all).min().orElseThrow());
            assertThat(s.max()).isEqualTo(Arrays.stream(all).max().orElseThrow());
            assertThat(explicitViolations(bounds, all, s))
                    .as("bounds %s", Arrays.toString(bounds))
                    .isEmpty();
            checked++;
        }
        assertThat(checked).isGreaterThan(300);
    }

    static double[] randomBounds(Random rnd) {
        int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 12 : 400);
        double[] b = new double[n];
        double x = rnd.nextBoolean() ? -rnd.nextDouble() * 1000 : rnd.nextDouble() * 10;
        for (int i = 0; i < n; i++) {
            b[i] = x;
            x += Math.pow(10, rnd.nextDouble() * 3 - 1);
        }
        return b;
    }

    static double[] randomValues(Random rnd, double[] bounds) {
        int n = 1 + rnd.nextInt(rnd.nextBoolean() ? 10 : 3000);
        double[] v = new double[n];
        double lo = bounds[0] - 50;
        double hi = bounds[bounds.length - 1] + 50;
        for (int i = 0; i < n; i++) {
            v[i] = switch (rnd.nextInt(4)) {
                case 0 -> bounds[rnd.nextInt(bounds.length)]; // exactly on a bound
                case 1 -> lo + (hi - lo) * Math.pow(rnd.nextDouble(), 3); // skewed low
                default -> lo + (hi - lo) * rnd.nextDouble();
            };
        }
        return v;
    }

    // ---------------------------------------------------------------- exponential buckets and summaries

    @Test
    void quantile_whenRandomExponentialScalesSignsAndZeroBuckets_isWithinTheBound() throws Exception {
        // Scales -3..20, positive and negative values, values on bucket bounds (powers of two): within sqrt(base)-1
        // plus 1% wherever the true value is outside the zero bucket (there the documented rule is "enters as 0").
        // The scale is lowered until the buckets span at most 160 per sign, as the SDKs' max_size does.
        Random rnd = new Random(150);
        int checked = 0;
        for (int t = 0; t < 1500; t++) {
            int scale = -3 + rnd.nextInt(24);
            double zt = rnd.nextInt(3) == 0 ? Math.pow(10, -rnd.nextInt(4)) : 0;
            int n = 2 + rnd.nextInt(rnd.nextBoolean() ? 8 : 2000);
            double[] values = new double[n];
            double center = Math.pow(10, rnd.nextDouble() * 8 - 3);
            double spread = Math.pow(2, rnd.nextDouble() * (rnd.nextBoolean() ? 0.05 : 30));
            for (int i = 0; i < n; i++) {
                double mag = rnd.nextInt(5) == 0
                        ? Math.scalb(1.0, rnd.nextInt(20) - 5)
                        : center * Math.pow(spread, rnd.nextDouble());
                values[i] = rnd.nextInt(4) == 0 ? -mag : rnd.nextInt(20) == 0 ? 0 : mag;
            }
            while (span(scale, zt, values) > 160) {
                scale--;
            }
            Summary s = stored(exponential(expo(scale, zt, values, true)));
            double[] sorted = sorted(values);
            assertThat(s.count()).isEqualTo(n);
            assertThat(s.min()).isEqualTo(sorted[0]);
            assertThat(s.max()).isEqualTo(sorted[n - 1]);
            for (double q : QS) {
                double want = nearestRank(sorted, q);
                if (Math.abs(want) <= zt && rank(q, n) != 1 && rank(q, n) != n) {
                    continue;
                }
                assertThat(Math.abs(s.quantile(q) - want))
                        .as("scale %d zt %s q %s", scale, zt, q)
                        .isLessThanOrEqualTo(exponentialBound(scale, sorted, q) * (1 + 1e-9));
            }
            checked++;
        }
        assertThat(checked).isEqualTo(1500);
    }

    /** How many buckets the larger sign needs at {@code scale}. */
    static long span(int scale, double zt, double[] values) {
        long[] lo = {Long.MAX_VALUE, Long.MAX_VALUE};
        long[] hi = {Long.MIN_VALUE, Long.MIN_VALUE};
        for (double v : values) {
            if (Math.abs(v) > zt) {
                int sign = v > 0 ? 0 : 1;
                int i = expIndex(Math.abs(v), scale);
                lo[sign] = Math.min(lo[sign], i);
                hi[sign] = Math.max(hi[sign], i);
            }
        }
        return Math.max(hi[0] - lo[0] + 1, hi[1] - lo[1] + 1);
    }

    @Test
    void quantile_whenNegativeScaleAndValuesOnPowerOfTwoBounds_isWithinTheBound() throws Exception {
        // scale -2: base 16, bucket 0 = (1, 16]; 16 is on its upper bound; documented bound sqrt(16)-1 = 300% (+1%).
        double[] values = {1.5, 16, 16, 17, 200, 256, 257, 4096};
        Summary s = stored(exponential(expo(-2, 0, values, true)));
        double[] sorted = sorted(values);
        for (double q : QS) {
            assertThat(Math.abs(s.quantile(q) - nearestRank(sorted, q)))
                    .isLessThanOrEqualTo(exponentialBound(-2, sorted, q));
        }
    }

    @Test
    void quantile_whenZeroBucketAndNegativeBuckets_entersZeroAsZeroAndMirrorsNegatives() throws Exception {
        // zero_threshold 0.5: the values -0.4, 0, 0.3 enter as 0 (documented); -8 is in negative bucket (2^2, 2^3] at
        // scale 0 and enters at -2^2.5 = -5.66, mirrored.
        double[] values = {-8, -8, -0.4, 0, 0.3, 3, 100};
        ExponentialHistogramDataPoint.Builder p = expo(0, 0.5, values, true);
        assertThat(p.getZeroCount()).isEqualTo(3);
        Summary s = stored(exponential(p));
        assertThat(s.quantile(0.5)).isEqualTo(0.0); // true 0
        assertThat(s.quantile(0.2))
                .isCloseTo(-Math.pow(2, 2.5), org.assertj.core.data.Offset.offset(Math.pow(2, 2.5) * SKETCH));
        assertThat(s.min()).isEqualTo(-8);
    }

    @Test
    void decode_whenExponentialOffsetIsAMillionWithoutMinMax_estimatesMinAndMaxWithinOnePercent() throws Exception {
        // offset -1,000,000 at scale 20 (values ~ 2^-0.95) and +1,000,000 (~ 2^0.95), without min and max.
        ExponentialHistogramDataPoint.Builder p = ExponentialHistogramDataPoint.newBuilder()
                .setTimeUnixNano(NOW_NS)
                .setScale(20)
                .setCount(3)
                .setSum(0.52 + 1.93 + 1.93)
                .setPositive(ExponentialHistogramDataPoint.Buckets.newBuilder()
                        .setOffset(-1_000_000)
                        .addBucketCounts(1))
                .setNegative(ExponentialHistogramDataPoint.Buckets.newBuilder()
                        .setOffset(1_000_000)
                        .addBucketCounts(2));
        Summary s = stored(exponential(p));
        double v = Math.pow(2, -1_000_000 / 1048576.0);
        assertThat(s.max()).isCloseTo(v, org.assertj.core.data.Offset.offset(v * SKETCH));
        assertThat(s.min()).isCloseTo(-1 / v, org.assertj.core.data.Offset.offset(SKETCH / v));
    }

    @Test
    void decode_whenOtlpSummary_keepsCountAndSumOnly() throws Exception {
        Metric m = Metric.newBuilder()
                .setName("rpc")
                .setUnit("s")
                .setSummary(io.opentelemetry.proto.metrics.v1.Summary.newBuilder()
                        .addDataPoints(SummaryDataPoint.newBuilder()
                                .setTimeUnixNano(NOW_NS)
                                .setCount(4)
                                .setSum(10.5)
                                .addQuantileValues(ValueAtQuantile.newBuilder()
                                        .setQuantile(0.99)
                                        .setValue(6))))
                .build();
        List<Datapoint> dps = decode(m);
        assertThat(dps).extracting(Datapoint::name).containsExactlyInAnyOrder("rpc.count", "rpc.sum");
        assertThat(dps).extracting(Datapoint::value).containsExactlyInAnyOrder(4.0, 10.5);
        assertThat(dps).allSatisfy(d -> assertThat(d.summary()).isNull());
    }

    @Test
    void decode_whenValueBeyondTheSketchsLargest_isPoisonNotABatchFailure() {
        // A finite value beyond the sketch's largest indexable value (~1.76e308) must not fail the batch: the
        // RecordDecoder turns the sketch's IllegalArgumentException into poison.
        double[] values = {1, 1.79e308};
        assertThatThrownBy(() -> decode(histogram(explicit(new double[] {10}, values, true, true))))
                .isInstanceOf(DecodeException.class);
    }

    // ---------------------------------------------------------------- the fixtures' expectations (events/expected)

    static final Path REPO = ProjectPython.REPO;

    /**
     * The lowest and highest rank are answered with the exact min and max, so the expectations the integration tests
     * check (events/expected) give them no tolerance: a bucket-sized one would let a wrong answer pass.
     */
    @Test
    void expectations_whenRankIsTheLowestOrHighest_areExactMinOrMax() throws Exception {
        for (String f : List.of("native", "cwlogs", "kpl", "otlp")) {
            JsonNode series = new ObjectMapper()
                    .readTree(REPO.resolve("events/expected/ingest-kinesis-" + f + ".json")
                            .toFile())
                    .get("series");
            series.forEach(minutes ->
                    minutes.forEach(m -> m.get("percentiles").properties().forEach(e -> {
                        long n = m.get("count").asLong();
                        long r = rank(Double.parseDouble(e.getKey().substring(1)) / 100, n);
                        if (r == 1 || r == n) {
                            assertThat(e.getValue().get("tolerance").asDouble())
                                    .as(f + " " + e.getKey())
                                    .isZero();
                            assertThat(e.getValue().get("value").asDouble())
                                    .isEqualTo(m.get(r == n ? "max" : "min").asDouble());
                        }
                    })));
        }
    }

    /**
     * scripts/gen_otlp.py writes the tolerances of the OTLP fixture's expectations: they must be the documented bound,
     * half the narrowed bucket plus 1% ([251, 500] gives 124.5 + 5), and for exponential buckets sqrt(base) and the
     * sketch's 1% compounded, as docs/otlp-input.md states it. Needs the project's Python ({@link ProjectPython}).
     */
    @Test
    void genOtlpTolerance_whenExplicitAndExponentialBuckets_isTheDocumentedBound() throws Exception {
        String python = ProjectPython.require("opentelemetry.sdk", "opentelemetry.exporter.otlp.proto.common")
                .toString();
        Process p = new ProcessBuilder(
                        python,
                        "-c",
                        "import sys; sys.path.insert(0, 'scripts'); import gen_otlp as g; "
                                + "print(g.tolerance('explicit', [251.0] * 89 + [500.0] * 11, 500.0, 0)); "
                                + "print(g.tolerance('exponential', [300.0], 300.0, 4))")
                .directory(REPO.toFile())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        String[] lines = out.strip().split("\\R");
        assertThat(Double.parseDouble(lines[0]))
                .isCloseTo((500 - 251) / 2.0 + 5, org.assertj.core.data.Offset.offset(1e-9));
        double sqrtBase = Math.sqrt(Math.pow(2, 1.0 / 16));
        assertThat(Double.parseDouble(lines[1]))
                .isCloseTo(300 * (sqrtBase * (1 + SKETCH) - 1), org.assertj.core.data.Offset.offset(1e-9));
    }

    /**
     * Expectations answered only by the exact min or max would never test the sketch: every format's fixture has
     * percentiles the sketch must answer (OTLP histograms over many buckets, a KPL user record of forty latencies).
     */
    @Test
    void expectations_whenEveryInputFormat_includePercentilesTheSketchAnswers() throws Exception {
        for (String f : List.of("native", "cwlogs", "kpl", "otlp")) {
            int[] inner = {0};
            JsonNode series = new ObjectMapper()
                    .readTree(REPO.resolve("events/expected/ingest-kinesis-" + f + ".json")
                            .toFile())
                    .get("series");
            series.forEach(minutes ->
                    minutes.forEach(m -> m.get("percentiles").properties().forEach(e -> {
                        long n = m.get("count").asLong();
                        long r = rank(Double.parseDouble(e.getKey().substring(1)) / 100, n);
                        if (r > 1
                                && r < n
                                && m.get("min").asDouble() != m.get("max").asDouble()) {
                            inner[0]++;
                        }
                    })));
            assertThat(inner[0]).as(f).isPositive();
        }
    }
}
