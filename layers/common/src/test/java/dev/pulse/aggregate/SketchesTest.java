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
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.offset;

import com.datadoghq.sketch.ddsketch.DDSketch;
import java.io.UncheckedIOException;
import java.util.Arrays;
import java.util.Random;
import java.util.stream.DoubleStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class SketchesTest {

    private static final double[] QUANTILES = {0, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 1};

    private static DDSketch sketchOf(double... values) {
        DDSketch s = Sketches.create();
        for (double v : values) {
            s.accept(v);
        }
        return s;
    }

    static Stream<Arguments> valueSets() {
        Random random = new Random(3);
        return Stream.of(
                Arguments.of("single value", new double[] {42}),
                Arguments.of(
                        "latencies 1e-3..1e6",
                        DoubleStream.generate(() -> Math.pow(10, -3 + 9 * random.nextDouble()))
                                .limit(5_000)
                                .toArray()),
                Arguments.of(
                        "negative, zero and positive",
                        DoubleStream.generate(() -> random.nextGaussian() * 1000)
                                .limit(2_000)
                                .map(v -> Math.abs(v) < 1 ? 0 : v)
                                .toArray()),
                Arguments.of(
                        "repeated value",
                        DoubleStream.generate(() -> 7.5).limit(1_000).toArray()),
                Arguments.of("validator extremes", new double[] {1e-100, -1e-100, 1e100, -1e100, 0}));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("valueSets")
    void deserialize_whenSerializedSketch_preservesCountAndQuantiles(String label, double[] values) {
        DDSketch original = sketchOf(values);

        DDSketch copy = Sketches.deserialize(Sketches.serialize(original));

        assertThat(copy.getCount()).isEqualTo(values.length);
        for (double q : QUANTILES) {
            assertThat(copy.getValueAtQuantile(q)).as("q=%s", q).isEqualTo(original.getValueAtQuantile(q));
        }
    }

    @Test
    void deserialize_whenEmptySketch_returnsEmptySketch() {
        DDSketch copy = Sketches.deserialize(Sketches.serialize(Sketches.create()));

        assertThat(copy.isEmpty()).isTrue();
        assertThat(copy.getCount()).isZero();
    }

    @Test
    void deserialize_whenSketchesOfPartsMerged_matchesSketchOfWhole() {
        // Rollups merge stored partial sketches; the result must equal one sketch over all the values.
        Random random = new Random(11);
        double[] all = DoubleStream.generate(() -> Math.exp(random.nextGaussian() * 3))
                .limit(6_000)
                .toArray();
        DDSketch whole = sketchOf(all);
        DDSketch merged = Sketches.create();
        for (int part = 0; part < 3; part++) {
            DDSketch partial = sketchOf(Arrays.copyOfRange(all, part * 2_000, (part + 1) * 2_000));
            merged.mergeWith(Sketches.deserialize(Sketches.serialize(partial)));
        }

        assertThat(merged.getCount()).isEqualTo(6_000.0);
        for (double q : QUANTILES) {
            assertThat(merged.getValueAtQuantile(q)).as("q=%s", q).isEqualTo(whole.getValueAtQuantile(q));
        }
    }

    private static double[] wholeAcceptedRange() {
        Random random = new Random(5);
        return DoubleStream.generate(() -> Math.pow(10, -100 + 200 * random.nextDouble()))
                .limit(20_000)
                .toArray();
    }

    @Test
    void create_whenValuesSpanWholeAcceptedRange_keepsUpperQuantilesAccurate() {
        // 1e-100..1e100 needs ~23,000 bins; MAX_BINS=2048 at 1% cover ~17 decades, so the lowest collapse and
        // only the top of the range (here q >= 0.92) keeps the 1% guarantee.
        double[] values = wholeAcceptedRange();
        DDSketch sketch = sketchOf(values);
        Arrays.sort(values);

        for (double q : new double[] {0.95, 0.99, 0.999, 1}) {
            double exact = values[(int) Math.floor(q * (values.length - 1))];
            assertThat(sketch.getValueAtQuantile(q))
                    .as("q=%s", q)
                    .isCloseTo(exact, offset(exact * Sketches.RELATIVE_ACCURACY));
        }
    }

    @Test
    void serialize_whenAllBinsUsed_staysAFewKilobytes() {
        // Sketches promises "a few kilobytes whatever the value range": each partial write costs 1 WCU per KB.
        byte[] bytes = Sketches.serialize(sketchOf(wholeAcceptedRange()));

        assertThat(bytes.length).isLessThanOrEqualTo(4 * 1024);
    }

    @Test
    void create_whenCalled_usesOnePercentRelativeAccuracy() {
        DDSketch sketch = Sketches.create();

        assertThat(sketch.getIndexMapping().relativeAccuracy()).isCloseTo(0.01, offset(1e-12));
    }

    @Test
    void deserialize_whenBytesTruncated_throwsCorruptSketch() {
        byte[] bytes = Sketches.serialize(sketchOf(1, 2, 3, 4, 5));
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 3);

        assertThatThrownBy(() -> Sketches.deserialize(truncated))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessage("corrupt sketch");
    }
}
