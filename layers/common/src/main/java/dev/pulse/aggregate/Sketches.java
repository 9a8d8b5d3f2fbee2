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

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import com.datadoghq.sketch.ddsketch.store.CollapsingLowestDenseStore;
import com.datadoghq.sketch.ddsketch.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one place that decides the sketch flavour: DDSketch with 1% relative accuracy and at most
 * {@value #MAX_BINS} bins per sign, so a serialized sketch stays a few kilobytes whatever the value range.
 */
public final class Sketches {

    public static final double RELATIVE_ACCURACY = 0.01;
    public static final int MAX_BINS = 2048;

    private Sketches() {}

    public static DDSketch create() {
        return DDSketches.collapsingLowestDense(RELATIVE_ACCURACY, MAX_BINS);
    }

    /**
     * The library's compact own encoding (not the protobuf form of {@code DDSketch.serialize()}, which is
     * several times larger and which {@link #deserialize} could not read), without the index mapping: every
     * Pulse sketch has the same one, and it was 17 of the 22 bytes of a one-value sketch. Decoding reads
     * sketches stored with or without it.
     */
    public static byte[] serialize(DDSketch sketch) {
        try {
            GrowingByteArrayOutput out = GrowingByteArrayOutput.withDefaultInitialCapacity();
            sketch.encode(out, true);
            return out.trimmedCopy();
        } catch (IOException e) {
            throw new UncheckedIOException("sketch encoding failed", e);
        }
    }

    /**
     * The encoding of {@code sketch} in at most {@code maxBytes}: as {@link #serialize} when it fits, else the sketch
     * collapsed to fewer bins (the lowest bins of each sign merged into the lowest kept one, as the store itself
     * collapses at {@value #MAX_BINS}) until it fits. Count, min, max and every bin's total stay exact; what is lost is
     * the resolution of the lowest values of a sketch that spans a very wide range (each sign's kept bins still span a
     * factor of (1.0202)^bins at 1% accuracy). Deterministic: the same sketch gives the same bytes.
     */
    public static byte[] serializeWithin(DDSketch sketch, int maxBytes) {
        byte[] bytes = serialize(sketch);
        for (int bins = MAX_BINS * 3 / 4;
                bytes.length > maxBytes && bins >= 1;
                bins = bins == 1 ? 0 : Math.max(1, bins * 3 / 4)) {
            bytes = serialize(collapsed(sketch, bins));
        }
        if (bytes.length > maxBytes) {
            throw new IllegalArgumentException("a sketch cannot be encoded in " + maxBytes + " bytes");
        }
        return bytes;
    }

    /**
     * {@code sketch} in stores of at most {@code bins} bins per sign, bin by bin: sketches-java 0.8.3's
     * {@code mergeWith} into a smaller collapsing store copies past that store's array (ArrayIndexOutOfBounds).
     */
    static DDSketch collapsed(DDSketch sketch, int bins) {
        Store positive = new CollapsingLowestDenseStore(bins);
        Store negative = new CollapsingLowestDenseStore(bins);
        sketch.getPositiveValueStore().forEach(positive::add);
        sketch.getNegativeValueStore().forEach(negative::add);
        // The zero bin's count is not public: it is what the two stores do not hold.
        double zero = Math.max(
                0,
                sketch.getCount()
                        - sketch.getPositiveValueStore().getTotalCount()
                        - sketch.getNegativeValueStore().getTotalCount());
        return DDSketch.of(sketch.getIndexMapping(), negative, positive, zero);
    }

    /** Adds the sketch encoded in {@code bytes} into {@code into}, without building it first. */
    public static void mergeEncoded(DDSketch into, byte[] bytes) {
        try {
            into.decodeAndMergeWith(ByteArrayInput.wrap(bytes));
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt sketch", e);
        }
    }

    public static DDSketch deserialize(byte[] bytes) {
        try {
            DDSketch sketch = create();
            sketch.decodeAndMergeWith(ByteArrayInput.wrap(bytes));
            return sketch;
        } catch (IOException e) {
            throw new UncheckedIOException("corrupt sketch", e);
        }
    }
}
