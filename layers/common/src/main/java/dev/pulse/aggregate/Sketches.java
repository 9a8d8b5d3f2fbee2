package dev.pulse.aggregate;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import com.datadoghq.sketch.ddsketch.encoding.GrowingByteArrayOutput;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The one place that decides the sketch flavour: DDSketch with 1% relative accuracy and at most
 * {@value #MAX_BINS} bins per sign, so a serialized sketch stays a few kilobytes whatever the value range.
 */
public final class Sketches {

    public static final double RELATIVE_ACCURACY = 0.01;
    public static final int MAX_BINS = 2048;

    private Sketches() {
    }

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
