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
        byte[] sketch = s.encodedSketch() != null ? s.encodedSketch() : Sketches.serialize(s.sketch());
        item.put(SKETCH, AttributeValue.fromB(SdkBytes.fromByteArrayUnsafe(sketch)));
    }

    public static Summary read(Map<String, AttributeValue> item) {
        return read(item, true);
    }

    /**
     * Reads a summary; without {@code withSketch} the sketch is left out (no percentiles), with it the sketch
     * is kept in its stored encoding until the summary is merged or changed ({@link Summary#withEncodedSketch}).
     */
    public static Summary read(Map<String, AttributeValue> item, boolean withSketch) {
        long count = Long.parseLong(item.get(COUNT).n());
        ExactSum sum = ExactSum.fromBytes(item.get(SUM_EXACT).b().asByteArrayUnsafe());
        double min = Double.parseDouble(item.get(MIN).n());
        double max = Double.parseDouble(item.get(MAX).n());
        return withSketch ? Summary.withEncodedSketch(count, sum, min, max, item.get(SKETCH).b().asByteArrayUnsafe())
                : new Summary(count, sum, min, max, null);
    }
}
