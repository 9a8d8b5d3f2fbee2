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

import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Summary;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * How an item holds a {@link Summary}: one binary attribute {@code s} in {@link SummaryCodec}'s encoding (minute
 * partials). Items written before that encoding hold six attributes ({@code count}, {@code sum}, {@code sumx},
 * {@code min}, {@code max}, {@code sketch}); they are still read.
 */
public final class SummaryAttributes {

    /** The encoded summary. */
    public static final String SUMMARY = "s";
    /** A readable count (rollup totals; legacy items). */
    public static final String COUNT = "count";
    /** A readable sum, rounded (rollup totals; legacy items). */
    public static final String SUM = "sum";

    static final String SUM_EXACT = "sumx";
    static final String MIN = "min";
    static final String MAX = "max";
    static final String SKETCH = "sketch";

    private SummaryAttributes() {}

    public static void put(Map<String, AttributeValue> item, Summary s) {
        item.put(SUMMARY, AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(SummaryCodec.encode(s))));
    }

    public static Summary read(Map<String, AttributeValue> item) {
        return read(item, true);
    }

    /**
     * Reads a summary; without {@code withSketch} the sketch is left out (no percentiles), with it the sketch
     * is kept in its stored encoding until the summary is merged or changed ({@link Summary#withEncodedSketch}).
     */
    public static Summary read(Map<String, AttributeValue> item, boolean withSketch) {
        AttributeValue encoded = item.get(SUMMARY);
        if (encoded != null) {
            return SummaryCodec.decode(encoded.b().asByteArrayUnsafe(), withSketch);
        }
        long count = Long.parseLong(item.get(COUNT).n());
        ExactSum sum = ExactSum.fromBytes(item.get(SUM_EXACT).b().asByteArrayUnsafe());
        double min = Double.parseDouble(item.get(MIN).n());
        double max = Double.parseDouble(item.get(MAX).n());
        return withSketch
                ? Summary.withEncodedSketch(
                        count, sum, min, max, item.get(SKETCH).b().asByteArrayUnsafe())
                : new Summary(count, sum, min, max, null);
    }
}
