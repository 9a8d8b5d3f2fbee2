package dev.pulse.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class LatestPartialsTest {

    private static final long MINUTE = 1763740860000L;

    private static Map<String, AttributeValue> item(String sk, String tag) {
        return Map.of(KeyScheme.SK, AttributeValue.fromS(sk), "tag", AttributeValue.fromS(tag));
    }

    private static List<String> run(List<Map<String, AttributeValue>> items) {
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
    void newestOf_whenPartitionsInterleavedAndUnordered_keepsNewestPerPartitionAndSlot() {
        // Two series whose minute was first touched by the same record share a slot string, in different partitions.
        String slot1 = KeyScheme.partialSk(MINUTE, "s", "100", 1);
        String slot2 = KeyScheme.partialSk(MINUTE, "s", "100", 2);
        List<Map<String, AttributeValue>> items = List.of(
                Map.of(KeyScheme.PK, AttributeValue.fromS("P#b"), KeyScheme.SK, AttributeValue.fromS(slot1), "tag", AttributeValue.fromS("b1")),
                Map.of(KeyScheme.PK, AttributeValue.fromS("P#a"), KeyScheme.SK, AttributeValue.fromS(slot2), "tag", AttributeValue.fromS("a2")),
                Map.of(KeyScheme.PK, AttributeValue.fromS("P#a"), KeyScheme.SK, AttributeValue.fromS(slot1), "tag", AttributeValue.fromS("a1")));

        assertThat(LatestPartials.newestOf(items)).extracting(i -> i.get("tag").s()).containsExactly("a2", "b1");
    }

    @Test
    void finish_whenNothingRead_passesNothing() {
        assertThat(run(List.of())).isEmpty();
    }
}
