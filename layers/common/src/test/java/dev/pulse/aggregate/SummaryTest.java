package dev.pulse.aggregate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class SummaryTest {

    private static Summary of(Random random, int n) {
        Summary s = new Summary();
        for (int i = 0; i < n; i++) {
            s.add(Math.pow(10, -2 + 6 * random.nextDouble()));
        }
        return s;
    }

    private static Summary encoded(Summary s) {
        return Summary.withEncodedSketch(s.count(), s.exactSum(), s.min(), s.max(), Sketches.serialize(s.sketch()));
    }

    @Test
    void merge_whenOtherSketchIsEncoded_equalsMergingTheDecodedSketch() {
        Random random = new Random(5);
        Summary a = of(random, 200);
        Summary b = of(random, 300);
        Summary viaDecoded = new Summary();
        viaDecoded.merge(a);
        viaDecoded.merge(b);
        Summary viaEncoded = new Summary();
        viaEncoded.merge(encoded(a));
        viaEncoded.merge(encoded(b));

        assertThat(viaEncoded.count()).isEqualTo(500);
        assertThat(viaEncoded.sum()).isEqualTo(viaDecoded.sum());
        for (double q : new double[] {0.01, 0.5, 0.9, 0.99, 1}) {
            assertThat(viaEncoded.quantile(q)).as("q" + q).isEqualTo(viaDecoded.quantile(q));
        }
        assertThat(Sketches.serialize(viaEncoded.sketch())).isEqualTo(Sketches.serialize(viaDecoded.sketch()));
    }

    @Test
    void reading_whenSketchIsEncoded_leavesTheSummaryUnchanged() {
        Summary source = of(new Random(6), 50);
        byte[] bytes = Sketches.serialize(source.sketch());
        Summary cached = encoded(source);

        assertThat(cached.hasSketch()).isTrue();
        assertThat(cached.quantile(0.99)).isEqualTo(source.quantile(0.99));
        Summary reader = new Summary();
        reader.merge(cached);
        cached.sketch().accept(1e6);

        assertThat(cached.encodedSketch()).isEqualTo(bytes);
        assertThat(cached.quantile(1)).isEqualTo(source.quantile(1));
    }

    @Test
    void add_whenSketchIsEncoded_decodesItFirstAndKeepsEveryValue() {
        Random random = new Random(7);
        Summary source = of(random, 100);
        Summary restored = encoded(source);

        restored.add(1e5);
        source.add(1e5);

        assertThat(restored.encodedSketch()).isNull();
        assertThat(restored.count()).isEqualTo(101);
        assertThat(restored.quantile(1)).isEqualTo(source.quantile(1));
        assertThat(restored.quantile(0.5)).isEqualTo(source.quantile(0.5));
    }
}
