package dev.pulse.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.MinuteAggregate;
import dev.pulse.aggregate.Sketches;
import dev.pulse.model.Datapoint;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class PartialItemsTest {

    private static final long T0 = 1763740800000L;

    private static MinuteAggregate partial(String unit, double... values) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000001");
        for (int i = 0; i < values.length; i++) {
            agg.addRecord(Integer.toString(500 + i),
                    List.of(new Datapoint("lat", Map.of("op", "Pay"), T0 + 61_000 + i, values[i], unit)));
        }
        return agg.partials().iterator().next();
    }

    @Test
    void partial_whenAggregate_mapsKeysAndSummary() {
        Map<String, AttributeValue> item = PartialItems.partial(partial("Milliseconds", 2, 5, 1), 86_400);

        assertThat(item.get(KeyScheme.PK).s()).isEqualTo("P#lat{op=Pay}#2025-11-21T16");
        assertThat(item.get(KeyScheme.SK).s()).isEqualTo("2025-11-21T16:01#shardId-000000000001#500");
        assertThat(item.get(PartialItems.SERIES).s()).isEqualTo("lat{op=Pay}");
        assertThat(item.get(PartialItems.MINUTE).n()).isEqualTo(Long.toString(T0 + 60_000));
        assertThat(item.get(SummaryAttributes.COUNT).n()).isEqualTo("3");
        assertThat(Double.parseDouble(item.get(SummaryAttributes.SUM).n())).isEqualTo(8.0);
        assertThat(Double.parseDouble(item.get(SummaryAttributes.MIN).n())).isEqualTo(1.0);
        assertThat(Double.parseDouble(item.get(SummaryAttributes.MAX).n())).isEqualTo(5.0);
        assertThat(item.get(PartialItems.FIRST_SEQ).s()).isEqualTo("500");
        assertThat(item.get(PartialItems.LAST_SEQ).s()).isEqualTo("502");
        assertThat(item.get(PartialItems.SHARD).s()).isEqualTo("shardId-000000000001");
        assertThat(item.get(PartialItems.UNIT).s()).isEqualTo("Milliseconds");
    }

    private static Map<String, AttributeValue> itemForSeriesA(List<String> sequences) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000001");
        for (int i = 0; i < sequences.size(); i++) {
            agg.addRecord(sequences.get(i), List.of(new Datapoint("a", Map.of(), T0 + i, 1, null)));
        }
        return PartialItems.partial(agg.partials().iterator().next(), 60);
    }

    @Test
    void partial_whenBatchRetriedFromSameFirstRecord_writesSameKeySoRetryOverwrites() {
        // Design "Storage": the key must come from the first contributing record. A retry starts at the same
        // first record but may hold more records (new arrivals) or fewer (bisection); only then does every
        // item of a failed attempt get overwritten instead of counted twice.
        Map<String, AttributeValue> failedAttempt = itemForSeriesA(List.of("101", "102"));
        Map<String, AttributeValue> largerRetry = itemForSeriesA(List.of("101", "102", "103"));
        Map<String, AttributeValue> bisectedRetry = itemForSeriesA(List.of("101"));

        assertThat(List.of(largerRetry, bisectedRetry)).allSatisfy(retry -> {
            assertThat(retry.get(KeyScheme.PK)).isEqualTo(failedAttempt.get(KeyScheme.PK));
            assertThat(retry.get(KeyScheme.SK)).isEqualTo(failedAttempt.get(KeyScheme.SK));
        });
        assertThat(largerRetry.get(KeyScheme.SK).s()).endsWith("#101");
    }

    @Test
    void partial_whenTtl_countsFromEndOfMinuteInSeconds() {
        Map<String, AttributeValue> item = PartialItems.partial(partial(null, 1), 3_600);

        assertThat(Long.parseLong(item.get(PartialItems.TTL).n())).isEqualTo((T0 + 120_000) / 1000 + 3_600);
    }

    @Test
    void partial_whenNoUnit_omitsUnitAttribute() {
        assertThat(PartialItems.partial(partial(null, 1), 60)).doesNotContainKey(PartialItems.UNIT);
    }

    @Test
    void partial_whenSketchStored_roundTripsThroughItem() {
        MinuteAggregate p = partial(null, 1, 10, 100, 1000);

        byte[] stored = PartialItems.partial(p, 60).get(SummaryAttributes.SKETCH).b().asByteArray();

        assertThat(Sketches.deserialize(stored).getCount()).isEqualTo(4.0);
        assertThat(Sketches.deserialize(stored).getValueAtQuantile(0.5)).isEqualTo(p.sketch().getValueAtQuantile(0.5));
    }

    @Test
    void partial_whenExtremeValues_numbersAreValidDynamoDbNumbers() {
        // DynamoDB rejects "Infinity"/"NaN" strings and exponents outside 1e-130..1e126.
        Map<String, AttributeValue> item = PartialItems.partial(partial(null, 1e100, -1e-100, 1e100), 60);

        for (String attr : List.of(SummaryAttributes.SUM, SummaryAttributes.MIN, SummaryAttributes.MAX)) {
            String n = item.get(attr).n();
            assertThat(n).as(attr).matches("-?[0-9.]+(E-?[0-9]+)?");
            double magnitude = Math.abs(Double.parseDouble(n));
            assertThat(magnitude).as(attr).isBetween(1e-130, 1e126);
        }
    }

    @Test
    void catalog_whenSeries_mapsNameAndDims() {
        Map<String, AttributeValue> item = PartialItems.catalog("lat{op=Pay}", "lat", Map.of("op", "Pay"));

        assertThat(item.get(KeyScheme.PK).s()).isEqualTo("C#lat");
        assertThat(item.get(KeyScheme.SK).s()).isEqualTo("lat{op=Pay}");
        assertThat(item.get(PartialItems.NAME).s()).isEqualTo("lat");
        assertThat(item.get(PartialItems.DIMS).m()).containsOnly(Map.entry("op", AttributeValue.fromS("Pay")));
    }
}
