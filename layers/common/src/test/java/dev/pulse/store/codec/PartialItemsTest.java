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

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.model.Datapoint;
import dev.pulse.store.schema.KeyScheme;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class PartialItemsTest {

    private static final long T0 = 1763740800000L;

    private static Partial partial(String unit, double... values) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000001");
        for (int i = 0; i < values.length; i++) {
            agg.addRecord(
                    Integer.toString(500 + i),
                    List.of(new Datapoint("lat", Map.of("op", "Pay"), T0 + 61_000 + i, values[i], unit)));
        }
        return agg.partials().iterator().next();
    }

    @Test
    void partial_whenAggregate_mapsKeysAndSummary() {
        Map<String, AttributeValue> item = PartialItems.partial(partial("Milliseconds", 2, 5, 1), 86_400, 7);

        assertThat(item.get(KeyScheme.PK).s()).isEqualTo("P#lat{op=Pay}#2025-11-21T16");
        assertThat(item.get(KeyScheme.SK).s()).isEqualTo("m01#1#AfQ#7"); // minute 01, shard 1, 500 = 0x01F4
        assertThat(KeyScheme.partialMinute(T0, item.get(KeyScheme.SK).s())).isEqualTo(T0 + 60_000);
        dev.pulse.aggregate.Summary s = SummaryAttributes.read(item);
        assertThat(s.count()).isEqualTo(3);
        assertThat(s.sum()).isEqualTo(8.0);
        assertThat(s.min()).isEqualTo(1.0);
        assertThat(s.max()).isEqualTo(5.0);
        assertThat(s.quantile(0.5)).isCloseTo(2.0, org.assertj.core.data.Percentage.withPercentage(1));
        // The key already holds series, minute, shard and first sequence number: the item does not repeat them.
        assertThat(item)
                .containsOnlyKeys(
                        KeyScheme.PK, KeyScheme.SK, SummaryAttributes.SUMMARY, PartialItems.UNIT, PartialItems.TTL);
        assertThat(item.get(PartialItems.UNIT).s()).isEqualTo("Milliseconds");
    }

    private static Map<String, AttributeValue> itemForSeriesA(List<String> sequences) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000001");
        for (int i = 0; i < sequences.size(); i++) {
            agg.addRecord(sequences.get(i), List.of(new Datapoint("a", Map.of(), T0 + i, 1, null)));
        }
        return PartialItems.partial(agg.partials().iterator().next(), 60, 3);
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
        assertThat(largerRetry.get(KeyScheme.SK).s()).endsWith("#" + KeyScheme.compactSequence("101") + "#3");
    }

    @Test
    void partial_whenTtl_countsFromEndOfMinuteInSeconds() {
        Map<String, AttributeValue> item = PartialItems.partial(partial(null, 1), 3_600, 1);

        assertThat(Long.parseLong(item.get(PartialItems.TTL).n())).isEqualTo((T0 + 120_000) / 1000 + 3_600);
    }

    @Test
    void partial_whenNoUnit_omitsUnitAttribute() {
        assertThat(PartialItems.partial(partial(null, 1), 60, 1)).doesNotContainKey(PartialItems.UNIT);
    }

    @Test
    void partial_whenSketchStored_roundTripsThroughItem() {
        Partial p = partial(null, 1, 10, 100, 1000);

        var stored = SummaryAttributes.read(PartialItems.partial(p, 60, 1)).sketch();

        assertThat(stored.getCount()).isEqualTo(4.0);
        assertThat(stored.getValueAtQuantile(0.5)).isEqualTo(p.sketch().getValueAtQuantile(0.5));
    }

    @Test
    void hourly_whenSumOutsideDynamoDbNumberRange_leavesOutTheReadableSumAndKeepsTheExactOne() {
        // DynamoDB rejects "Infinity"/"NaN" strings and exponents outside 1e-130..1e126; the readable sum is
        // for people, the exact one is inside the binary buckets.
        java.util.SortedMap<Integer, dev.pulse.aggregate.Summary> minutes = new java.util.TreeMap<>();
        minutes.put(0, partial(null, 1e200, 1e200).summary());
        minutes.put(1, partial(null, 1.5).summary());

        Map<String, AttributeValue> big = RollupItems.hourly("a", T0, minutes, 60);
        minutes.remove(0);
        Map<String, AttributeValue> small = RollupItems.hourly("a", T0, minutes, 60);

        assertThat(big)
                .doesNotContainKey(SummaryAttributes.SUM)
                .containsEntry(SummaryAttributes.COUNT, AttributeValue.fromN("3"));
        assertThat(RollupItems.total(big, RollupItems.MINUTES).sum()).isEqualTo(2e200);
        assertThat(small.get(SummaryAttributes.SUM).n()).isEqualTo("1.5");
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
