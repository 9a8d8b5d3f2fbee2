package dev.pulse.store;

import dev.pulse.aggregate.ExactSum;
import dev.pulse.aggregate.Sketches;
import dev.pulse.aggregate.Summary;
import java.util.Map;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The attributes of a {@link Summary}, the same in every item that holds one (partials, rollups and the
 * nested minute and hour entries of rollups): {@code count}, {@code sum} (rounded, for people),
 * {@code sumx} (exact), {@code min}, {@code max}, {@code sketch}.
 */
public final class SummaryAttributes {

    public static final String COUNT = "count";
    public static final String SUM = "sum";
    public static final String SUM_EXACT = "sumx";
    public static final String MIN = "min";
    public static final String MAX = "max";
    public static final String SKETCH = "sketch";

    private SummaryAttributes() {
    }

    public static void put(Map<String, AttributeValue> item, Summary s) {
        item.put(COUNT, AttributeValue.fromN(Long.toString(s.count())));
        item.put(SUM, AttributeValue.fromN(Double.toString(s.sum())));
        item.put(SUM_EXACT, AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(s.exactSum().toBytes())));
        item.put(MIN, AttributeValue.fromN(Double.toString(s.min())));
        item.put(MAX, AttributeValue.fromN(Double.toString(s.max())));
        item.put(SKETCH, AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(Sketches.serialize(s.sketch()))));
    }

    public static Summary read(Map<String, AttributeValue> item) {
        return read(item, true);
    }

    /** Reads a summary; without {@code withSketch} the sketch is not decoded (no percentiles, far less memory). */
    public static Summary read(Map<String, AttributeValue> item, boolean withSketch) {
        return new Summary(
                Long.parseLong(item.get(COUNT).n()),
                ExactSum.fromBytes(item.get(SUM_EXACT).b().asByteArrayUnsafe()),
                Double.parseDouble(item.get(MIN).n()),
                Double.parseDouble(item.get(MAX).n()),
                withSketch ? Sketches.deserialize(item.get(SKETCH).b().asByteArrayUnsafe()) : null);
    }
}
