package dev.pulse.aggregate;

import com.datadoghq.sketch.ddsketch.DDSketch;
import com.datadoghq.sketch.ddsketch.DDSketches;
import com.datadoghq.sketch.ddsketch.encoding.ByteArrayInput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

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

    public static byte[] serialize(DDSketch sketch) {
        ByteBuffer buf = sketch.serialize();
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return bytes;
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
