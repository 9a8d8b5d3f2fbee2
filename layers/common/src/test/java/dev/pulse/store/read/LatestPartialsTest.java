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
package dev.pulse.store.read;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.store.schema.KeyScheme;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class LatestPartialsTest {

    private static final long MINUTE = 1763740860000L;

    /** A partial reduced to its sort key and a tag naming it. */
    static Map<String, AttributeValue> item(String sk, String tag) {
        return Map.of(KeyScheme.SK, AttributeValue.fromS(sk), "tag", AttributeValue.fromS(tag));
    }

    /** The tags of the partials one partition's {@code items} (fed in this order) pass on. */
    static List<String> run(List<Map<String, AttributeValue>> items) {
        List<String> out = new ArrayList<>();
        LatestPartials latest = new LatestPartials(i -> out.add(i.get("tag").s()));
        items.forEach(latest);
        latest.finish();
        return out;
    }

    @Test
    void accept_whenSlotWrittenByThreeGenerations_passesOnlyTheNewest() {
        // In key order: "...#10" sorts before "...#9"; the newest wins whatever the order.
        List<String> out = run(List.of(
                item(KeyScheme.partialSk(MINUTE, "s", "100", 10), "g10"),
                item(KeyScheme.partialSk(MINUTE, "s", "100", 2), "g2"),
                item(KeyScheme.partialSk(MINUTE, "s", "100", 9), "g9")));

        assertThat(out).containsExactly("g10");
    }

    @Test
    void accept_whenSlotsDiffer_passesEachSlotsNewestInOrder() {
        List<String> out = run(List.of(
                item("2025-11-21T16:01#s#100", "legacy"),
                item(KeyScheme.partialSk(MINUTE, "s", "100", 1), "100@1"),
                item(KeyScheme.partialSk(MINUTE, "s", "1000", 1), "1000@1"),
                item(KeyScheme.partialSk(MINUTE, "s", "101", 4), "101@4"),
                item(KeyScheme.partialSk(MINUTE + 60_000, "s", "100", 3), "next minute")));

        assertThat(out).containsExactly("100@1", "1000@1", "101@4", "next minute");
    }

    @Test
    void accept_whenPartitionHoldsKeysOfBothLayouts_passesEachRecordOnceAndTheCurrentLayoutsOverTheEarlier() {
        // A partition written across the upgrade to compact keys, in DynamoDB's key order: record 100's minute was
        // stored by the earlier code (generations 3 and 4) and stored again by a retry with the current code
        // (generation 5): only that counts. Record 200 and minute 02 were stored only by the earlier code.
        String shard = "shardId-000000000007";
        List<String> sks = new ArrayList<>(List.of(
                "2025-11-21T16:01#" + shard + "#100#3",
                "2025-11-21T16:01#" + shard + "#100#4",
                "2025-11-21T16:01#" + shard + "#200",
                "2025-11-21T16:01#" + shard + "#200#2",
                "2025-11-21T16:02#" + shard + "#100#4",
                KeyScheme.partialSk(MINUTE, shard, "100", 5),
                KeyScheme.partialSk(MINUTE, shard, "300", 6),
                KeyScheme.partialSk(MINUTE + 20 * 60_000L, shard, "300", 6),
                KeyScheme.partialSk(MINUTE + 40 * 60_000L, shard, "300", 6)));
        java.util.Collections.sort(sks);
        assertThat(sks.get(4)).startsWith("2025-"); // the earlier layout sorts before the current one
        assertThat(sks.get(5)).startsWith("m01#");

        List<String> out = run(sks.stream().map(sk -> item(sk, sk)).toList());

        assertThat(out)
                .containsExactlyInAnyOrder(
                        KeyScheme.partialSk(MINUTE, shard, "100", 5),
                        KeyScheme.partialSk(MINUTE, shard, "300", 6),
                        KeyScheme.partialSk(MINUTE + 20 * 60_000L, shard, "300", 6),
                        KeyScheme.partialSk(MINUTE + 40 * 60_000L, shard, "300", 6),
                        "2025-11-21T16:01#" + shard + "#200#2",
                        "2025-11-21T16:02#" + shard + "#100#4");
    }

    @Test
    void finish_whenCalledBetweenPartitions_forgetsTheSlotsOfTheLast() {
        // The same slot string in two partitions (two series) counts in each.
        String sk = KeyScheme.partialSk(MINUTE, "shardId-000000000000", "100", 1);
        List<String> out = new ArrayList<>();
        LatestPartials latest = new LatestPartials(i -> out.add(i.get("tag").s()));
        latest.accept(item("2025-11-21T16:01#shardId-000000000000#100", "a-legacy"));
        latest.accept(item(sk, "a"));
        latest.finish();
        latest.accept(item("2025-11-21T16:01#shardId-000000000000#100", "b-legacy"));
        latest.accept(item(sk, "b"));
        latest.finish();

        assertThat(out).containsExactly("a", "b");
    }

    @Test
    void accept_whenEarlierLayoutPartialAfterACurrentOne_refusesTheOrder() {
        // DynamoDB returns a partition in key order, where the earlier layout comes first; anything else would let a
        // record count twice, so it is refused rather than summed.
        LatestPartials latest = new LatestPartials(i -> {});
        latest.accept(item(KeyScheme.partialSk(MINUTE, "shardId-000000000000", "100", 2), "current"));

        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> latest.accept(item("2025-11-21T16:01#shardId-000000000000#100#1", "earlier")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("out of key order");
    }

    @Test
    void newestOf_whenPartitionsInterleavedAndUnordered_keepsNewestPerPartitionAndSlot() {
        // Two series whose minute was first touched by the same record share a slot string, in different partitions.
        String slot1 = KeyScheme.partialSk(MINUTE, "s", "100", 1);
        String slot2 = KeyScheme.partialSk(MINUTE, "s", "100", 2);
        List<Map<String, AttributeValue>> items = List.of(
                Map.of(
                        KeyScheme.PK,
                        AttributeValue.fromS("P#b"),
                        KeyScheme.SK,
                        AttributeValue.fromS(slot1),
                        "tag",
                        AttributeValue.fromS("b1")),
                Map.of(
                        KeyScheme.PK,
                        AttributeValue.fromS("P#a"),
                        KeyScheme.SK,
                        AttributeValue.fromS(slot2),
                        "tag",
                        AttributeValue.fromS("a2")),
                Map.of(
                        KeyScheme.PK,
                        AttributeValue.fromS("P#a"),
                        KeyScheme.SK,
                        AttributeValue.fromS(slot1),
                        "tag",
                        AttributeValue.fromS("a1")));

        assertThat(LatestPartials.newestOf(items))
                .extracting(i -> i.get("tag").s())
                .containsExactly("a2", "b1");
    }

    @Test
    void finish_whenNothingRead_passesNothing() {
        assertThat(run(List.of())).isEmpty();
    }
}
