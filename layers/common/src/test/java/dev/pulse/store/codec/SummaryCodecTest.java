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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.aggregate.Summary;
import java.util.Map;
import java.util.SortedMap;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class SummaryCodecTest {

    private static Summary summary(SplittableRandom r, int n) {
        Summary s = new Summary();
        for (int i = 0; i < n; i++) {
            s.add(r.nextDouble() < 0.1 ? -r.nextDouble() * 1e-3 : 1e6 * r.nextDouble() + 0.1);
        }
        return s;
    }

    private static void assertSame(Summary got, Summary want) {
        assertThat(got.count()).isEqualTo(want.count());
        assertThat(got.sum()).isEqualTo(want.sum()); // the exact sum survives, not only its rounding
        assertThat(got.min()).isEqualTo(want.min());
        assertThat(got.max()).isEqualTo(want.max());
        for (double q : new double[] {0, 0.5, 0.9, 0.99, 1}) {
            assertThat(got.quantile(q)).isEqualTo(want.quantile(q));
        }
    }

    @ParameterizedTest(name = "{0} values")
    @ValueSource(ints = {1, 2, 10, 1000})
    void decode_whenEncoded_givesTheSameSummary(int n) {
        Summary want = summary(new SplittableRandom(n), n);

        assertSame(SummaryCodec.decode(SummaryCodec.encode(want), true), want);
        Summary noSketch = SummaryCodec.decode(SummaryCodec.encode(want), false);
        assertThat(noSketch.hasSketch()).isFalse();
        assertThat(noSketch.count()).isEqualTo(n);
    }

    @Test
    void decodeBuckets_whenEncoded_givesEveryBucketAndMergesLikeTheOriginals() {
        SplittableRandom r = new SplittableRandom(7);
        SortedMap<Integer, Summary> buckets = new TreeMap<>();
        for (int i : new int[] {0, 1, 17, 59}) {
            buckets.put(i, summary(r, 1 + r.nextInt(40)));
        }

        SortedMap<Integer, Summary> got = SummaryCodec.decodeBuckets(SummaryCodec.encodeBuckets(buckets), true);

        assertThat(got.keySet()).containsExactly(0, 1, 17, 59);
        buckets.forEach((i, s) -> assertSame(got.get(i), s));
        Summary mergedWant = new Summary();
        buckets.values().forEach(mergedWant::merge);
        Summary mergedGot = new Summary();
        got.values().forEach(mergedGot::merge);
        assertSame(mergedGot, mergedWant);
    }

    @Test
    void read_whenItemInLegacyNamedAttributes_stillReadsIt() {
        Summary want = summary(new SplittableRandom(3), 5);
        Map<String, AttributeValue> legacy = new java.util.HashMap<>();
        legacy.put("count", AttributeValue.fromN("5"));
        legacy.put(
                "sumx",
                AttributeValue.fromB(software.amazon.awssdk.core.SdkBytes.fromByteArray(
                        want.exactSum().toBytes())));
        legacy.put("min", AttributeValue.fromN(Double.toString(want.min())));
        legacy.put("max", AttributeValue.fromN(Double.toString(want.max())));
        legacy.put(
                "sketch",
                AttributeValue.fromB(software.amazon.awssdk.core.SdkBytes.fromByteArray(
                        dev.pulse.aggregate.Sketches.serialize(want.sketch()))));

        assertSame(SummaryAttributes.read(legacy), want);
    }

    @Test
    void encodeBuckets_whenHourOfOneValueAMinute_isUnderAQuarterOfTheNamedAttributeForm() {
        SplittableRandom r = new SplittableRandom(11);
        SortedMap<Integer, Summary> minutes = new TreeMap<>();
        for (int i = 0; i < 60; i++) {
            minutes.put(i, summary(r, 1));
        }

        // 60 x (count, value, 5-byte sketch), against 6.1 KB for the same minutes as named attributes.
        assertThat(SummaryCodec.encodeBuckets(minutes).length).isLessThan(1_500);
    }

    @Test
    void decodeBuckets_whenUnknownVersion_refuses() {
        assertThatThrownBy(() -> SummaryCodec.decodeBuckets(new byte[] {9}, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("version 9");
    }
}
