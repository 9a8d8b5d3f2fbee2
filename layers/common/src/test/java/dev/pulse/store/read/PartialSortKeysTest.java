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
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.pulse.store.schema.KeyScheme;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * The partial sort keys (docs/storage.md, "compact keys") and the earlier layout they replaced: a slot's partials stay
 * adjacent in DynamoDB's key order whatever the shard id and sequence hold, the slot is injective and the same in both
 * layouts, readers get the minute back from the key, and {@link LatestPartials} passes each slot's newest generation
 * once, across layouts, in constant memory. Exactly-once rests on these: a reader that passed two generations of one
 * slot would count a retried batch twice. A rollback to a release before compact keys is not supported
 * (docs/storage.md), but partials of the earlier layout are read until they expire.
 */
class PartialSortKeysTest {

    private static final long MINUTE = 1763740860000L; // 2025-11-21T16:01Z
    private static final String SHARD = "shardId-000000000007";

    private static Map<String, AttributeValue> item(String sk, String tag) {
        return LatestPartialsTest.item(sk, tag);
    }

    private static List<String> run(List<Map<String, AttributeValue>> items) {
        return LatestPartialsTest.run(items);
    }

    /** A partial key in the earlier layout: {@code <yyyy-MM-ddTHH:mm>#<shardId>#<firstSeq>#<generation>}. */
    private static String legacySk(long minuteStart, String shardId, String seq, long generation) {
        return KeyScheme.minute(minuteStart) + "#" + shardId + "#" + seq + "#" + generation;
    }

    /** DynamoDB's order of string sort keys: the unsigned bytes of their UTF-8 encoding. */
    private static final Comparator<String> DYNAMO_ORDER = (a, b) -> {
        byte[] x = a.getBytes(StandardCharsets.UTF_8);
        byte[] y = b.getBytes(StandardCharsets.UTF_8);
        return java.util.Arrays.compareUnsigned(x, y);
    };

    /** The slots of {@code sks} in DynamoDB's order; fails if a slot comes back after another slot. */
    private static void assertAdjacent(Collection<String> sks) {
        List<String> sorted = new ArrayList<>(sks);
        sorted.sort(DYNAMO_ORDER);
        Set<String> closed = new HashSet<>();
        String current = null;
        for (String sk : sorted) {
            String slot = KeyScheme.partialSlot(sk);
            if (!slot.equals(current)) {
                assertThat(closed.add(slot))
                        .as("slot %s comes back after other slots in %s", slot, sorted)
                        .isTrue();
                current = slot;
            }
        }
    }

    // --- LatestPartials across the two layouts ---------------------------------------------------------------

    /**
     * Generations are weighed across layouts, not by layout. A deploy of compact keys, a rollback and a deploy again
     * (the earlier release writes the earlier layout, with generations from the same shard counter): slot 100 of
     * minute 01 stored by the current layout at generation 10 (a batch of records 100..104 that failed before its
     * commit), then in the earlier layout at generation 12 (the bisected retry: records 100..101, committed); records
     * 102..104 went to slot 102 (generation 13). Readers must sum the newest generation of slot 100, as within one
     * layout; if the current layout won whatever its generation, records 102..104 would count twice.
     */
    @Test
    void latestPartials_whenLegacyPartialOfSlotIsNewerThanCurrentOne_passesTheNewestGeneration() {
        List<String> sks = new ArrayList<>(List.of(
                KeyScheme.partialSk(MINUTE, SHARD, "100", 10), // current code, records 100..104, not committed
                legacySk(MINUTE, SHARD, "100", 12), // earlier code after the rollback: records 100..101, committed
                legacySk(MINUTE, SHARD, "102", 13))); // records 102..104
        sks.sort(DYNAMO_ORDER);

        List<String> out = run(sks.stream().map(sk -> item(sk, sk)).toList());

        assertThat(out)
                .containsExactlyInAnyOrder(legacySk(MINUTE, SHARD, "100", 12), legacySk(MINUTE, SHARD, "102", 13));
    }

    /**
     * A reader holds one partial at a time when the partition has no earlier-layout partial (every partition, once the
     * upgrade's TTL has passed): a hot series' open hour (many shards, a batch a second each) holds hundreds of
     * thousands of slots, and the query function reads many such partitions at once, so remembering every slot until
     * {@link LatestPartials#finish} would grow with the partition.
     */
    @Test
    void latestPartials_whenPartitionHoldsNoLegacyPartial_keepsConstantMemory() throws Exception {
        LatestPartials latest = new LatestPartials(i -> {});
        int n = 100_000;
        List<String> sks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sks.add(KeyScheme.partialSk(
                    MINUTE + (i % 60) * 60_000L,
                    "shardId-0000000000" + (i % 100),
                    "4959033827149025660855969253836157109592157598913" + (1_000_000 + i),
                    7));
        }
        sks.sort(DYNAMO_ORDER);
        for (String sk : sks) {
            latest.accept(item(sk, "x"));
        }
        int remembered = 0;
        for (java.lang.reflect.Field f : LatestPartials.class.getDeclaredFields()) {
            f.setAccessible(true);
            Object v = java.lang.reflect.Modifier.isStatic(f.getModifiers()) ? null : f.get(latest);
            remembered += v instanceof Collection<?> c ? c.size() : v instanceof Map<?, ?> m ? m.size() : 0;
        }

        assertThat(remembered)
                .as("entries held in the reader's collections before finish()")
                .isLessThan(10);
    }

    // --- the key: adjacency, injectivity, the minute -----------------------------------------------------------

    /**
     * The shard id comes from the event ID before its ':' (IngestService.shardId), so a hand-made or non-Kinesis
     * event can carry any string, and a shard id other than {@code shardId-<digits>} is kept verbatim behind '='.
     * Unescaped, a '#' in it would put another slot ({@code 01#=a#AQ#1x#AQ}, shard "a#AQ#1x") between generations 1
     * and 2 of slot {@code 01#=a#AQ} (shard "a", record 1) in key order, and LatestPartials would pass both
     * generations: '#' and what sorts below it are escaped.
     */
    @Test
    void partialSk_whenVerbatimShardIdHoldsHash_keepsTheSlotsGenerationsAdjacent() {
        List<String> sks = new ArrayList<>(List.of(
                KeyScheme.partialSk(MINUTE, "a", "1", 1),
                KeyScheme.partialSk(MINUTE, "a", "1", 2),
                KeyScheme.partialSk(MINUTE, "a#AQ#1x", "1", 5)));
        sks.sort(DYNAMO_ORDER);

        List<String> out = run(sks.stream().map(sk -> item(sk, sk)).toList());

        assertThat(out).as("sorted keys %s", sks).doesNotContain(KeyScheme.partialSk(MINUTE, "a", "1", 1));
    }

    /** Only Kinesis' twelve-digit shard ids are shortened, so ids that differ only in leading zeros stay apart. */
    @Test
    void compactShard_whenShardIdsDifferOnlyInLeadingZeros_keepsThemApart() {
        Set<String> compact = new HashSet<>();
        for (String id : List.of("shardId-42", "shardId-042", "shardId-000000000042")) {
            compact.add(KeyScheme.compactShard(id));
        }

        assertThat(compact).hasSize(3);
    }

    /**
     * The earlier readers split a partial key with lastIndexOf('#') and read any shard id: an earlier-layout key whose
     * shard id holds '#' is read the same way, since one item that threw would fail the query of its partition and
     * the build of its hour until it expired.
     */
    @Test
    void partialSlot_whenEarlierLayoutKeysShardIdHoldsHash_readsIt() {
        String legacy = legacySk(MINUTE, "hand#made", "100", 3);
        List<Map<String, AttributeValue>> items = List.of(item(legacy, "legacy"));

        assertThatCode(() -> run(items)).doesNotThrowAnyException();
    }

    // --- every form of shard id and sequence ------------------------------------------------------------------

    private static final String NASTY = " !\"$%&'()*+,-./0123456789:;<=>?@AZaz_~\u007f\u00e9\u20ac\uffff\ud83d\ude00";

    private static String nasty(Random random, int max) {
        StringBuilder sb = new StringBuilder();
        int n = random.nextInt(0, max + 1);
        while (sb.length() < n) {
            int i = random.nextInt(NASTY.length());
            char c = NASTY.charAt(i);
            if (Character.isHighSurrogate(c)) {
                sb.append(c).append(NASTY.charAt(i + 1));
            } else if (!Character.isLowSurrogate(c)) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    private static String shard(Random random) {
        return switch (random.nextInt(7)) {
            case 0 -> "shardId-" + String.format("%012d", random.nextInt(0, 40));
            case 1 -> "shardId-" + random.nextInt(0, 40);
            case 2 -> "shardId-" + "1".repeat(19); // too long for the short form
            case 3 -> "shardId-00000000000" + nasty(random, 2);
            case 4 -> "=" + random.nextInt(0, 5);
            case 5 -> Integer.toString(random.nextInt(0, 40)); // a bare number, verbatim as "=<n>"
            default -> nasty(random, 6);
        };
    }

    private static String sequence(Random random) {
        String n = new java.math.BigInteger(random.nextInt(1, 200), random).toString();
        return switch (random.nextInt(9)) {
            case 0 -> n;
            case 1 -> n + "." + random.nextInt(0, 20);
            case 2 -> n + ".0" + random.nextInt(0, 20); // sub with a leading zero
            case 3 -> "0" + n; // leading zero
            case 4 -> "";
            case 5 -> n + ".";
            case 6 -> "=" + n;
            case 7 -> n + "." + random.nextInt(0, 20) + "." + random.nextInt(0, 20);
            default -> nasty(random, 8);
        };
    }

    /** Adjacency: inputs of any characters ('#' and below it too), generations of any digit count. */
    @Test
    void partialSk_whenShardsAndSequencesOfEveryForm_keepsEachSlotAdjacentInUtf8Order() {
        Random random = new Random(11);
        for (int round = 0; round < 200; round++) {
            List<String> shards = new ArrayList<>();
            List<String> seqs = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                shards.add(shard(random));
                seqs.add(sequence(random));
            }
            List<String> sks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                long g = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(0, 10);
                    case 1 -> random.nextInt(10, 1000);
                    case 2 -> random.nextLong(0, Long.MAX_VALUE);
                    default -> 9 * (long) Math.pow(10, random.nextInt(0, 12));
                };
                sks.add(KeyScheme.partialSk(
                        MINUTE + random.nextInt(0, 2) * 60_000L,
                        shards.get(random.nextInt(6)),
                        seqs.get(random.nextInt(6)),
                        g));
            }
            assertAdjacent(sks);
        }
    }

    /** The slot is injective in (minute, shard, first sequence), so two records never share one. */
    @Test
    void partialSlot_whenInputsOfEveryForm_isInjective() {
        Random random = new Random(12);
        Map<String, List<Object>> seen = new HashMap<>();
        for (int i = 0; i < 200_000; i++) {
            String shard = shard(random);
            String seq = sequence(random);
            long minute = MINUTE - 60_000L + random.nextInt(0, 60) * 60_000L;
            List<Object> in = List.of(minute, shard, seq);
            List<Object> before =
                    seen.putIfAbsent(KeyScheme.partialSlot(KeyScheme.partialSk(minute, shard, seq, 1)), in);
            assertThat(before == null || before.equals(in))
                    .as("%s and %s share a slot", before, in)
                    .isTrue();
        }
    }

    /** An earlier-layout key names the same slot as the current key of the same record, with the same generation. */
    @Test
    void partialSlot_whenSameRecordInBothLayouts_isTheSameAndGenerationIsKept() {
        Random random = new Random(13);
        for (int i = 0; i < 50_000; i++) {
            String shard = shard(random); // '#' too: the earlier readers took the sequence after the last '#'
            String seq = sequence(random).replace("#", "");
            long minute = Instant.parse("2025-11-21T16:00:00Z").toEpochMilli() + random.nextInt(0, 60) * 60_000L;
            long g = random.nextLong(0, Long.MAX_VALUE);
            String current = KeyScheme.partialSk(minute, shard, seq, g);
            String legacy = legacySk(minute, shard, seq, g);
            String legacyNoGeneration = KeyScheme.minute(minute) + "#" + shard + "#" + seq;
            assertThat(KeyScheme.legacyPartial(current)).isFalse();
            assertThat(KeyScheme.legacyPartial(legacy)).isTrue();
            assertThat(KeyScheme.partialSlot(legacy)).as(legacy).isEqualTo(KeyScheme.partialSlot(current));
            assertThat(KeyScheme.partialSlot(legacyNoGeneration)).isEqualTo(KeyScheme.partialSlot(current));
            assertThat(KeyScheme.partialGeneration(legacy)).isEqualTo(g);
            assertThat(KeyScheme.partialGeneration(current)).isEqualTo(g);
            assertThat(KeyScheme.partialGeneration(legacyNoGeneration)).isZero();
            assertThat(KeyScheme.partialMinute(KeyScheme.partialPk("s", minute), current))
                    .isEqualTo(minute);
            assertThat(KeyScheme.partialMinute(KeyScheme.partialPk("s", minute), legacy))
                    .isEqualTo(minute);
        }
    }

    /** The minute back from the key, before 1970, at minute 59, at odd years, for unaligned inputs. */
    @ParameterizedTest
    @CsvSource({
        "1969-12-31T23:59:00Z", "1969-12-31T23:00:00Z", "1970-01-01T00:00:00Z", "1970-01-01T00:59:00Z",
        "0001-01-01T00:59:00Z", "0999-06-30T12:59:00Z", "9999-12-31T23:59:00Z", "2024-02-29T23:59:00Z",
        "2026-11-21T16:00:00Z", "2026-11-21T16:59:00Z", "1900-03-01T05:30:00Z"
    })
    void partialMinute_whenEdgeMinutes_comesBackFromEitherLayout(String at) {
        long minute = Instant.parse(at).toEpochMilli();
        String pk = KeyScheme.partialPk("s{}", minute);
        long hourStart = KeyScheme.hourStart(pk.substring(pk.length() - 13));
        for (long offset : new long[] {0, 1, 59_999}) {
            String sk = KeyScheme.partialSk(minute + offset, SHARD, "42", 3);
            assertThat(KeyScheme.partialPk("s{}", minute + offset)).isEqualTo(pk);
            assertThat(KeyScheme.partialMinute(hourStart, sk)).as(sk).isEqualTo(minute);
            assertThat(KeyScheme.partialMinute(pk, sk)).as(sk).isEqualTo(minute);
        }
        String legacy = legacySk(minute, SHARD, "42", 3);
        assertThat(KeyScheme.partialMinute(hourStart, legacy)).as(legacy).isEqualTo(minute);
        assertThat(KeyScheme.partialSlot(legacy))
                .isEqualTo(KeyScheme.partialSlot(KeyScheme.partialSk(minute, SHARD, "42", 9)));
    }

    /**
     * A partition written across upgrades and rollbacks, in DynamoDB's key order (the earlier layout first), with
     * generations of either layout newer, and generation-less earlier partials: each slot once, its newest generation
     * whatever the layout (the current one on a tie).
     */
    @Test
    void latestPartials_whenPartitionMixesLayoutsInKeyOrder_passesEachSlotsNewestOnce() {
        Random random = new Random(14);
        long shared = 0;
        for (int round = 0; round < 2_000; round++) {
            Map<String, String> expected = new LinkedHashMap<>(); // slot -> key passed
            Map<String, Long> expectedGen = new HashMap<>();
            List<String> current = new ArrayList<>();
            List<String> legacy = new ArrayList<>();
            for (int i = 0; i < 12; i++) {
                long minute = MINUTE - 60_000L + new int[] {0, 20, 40, 59}[random.nextInt(0, 4)] * 60_000L; // one hour
                String seq = Integer.toString(random.nextInt(95, 98))
                        + (random.nextBoolean() ? "" : "." + random.nextInt(0, 2));
                String shard = "shardId-00000000000" + random.nextInt(0, 2);
                boolean isCurrent = random.nextBoolean();
                long g = isCurrent ? random.nextInt(1, 15) : random.nextInt(0, 15);
                String sk = isCurrent
                        ? KeyScheme.partialSk(minute, shard, seq, g)
                        : g == 0 ? KeyScheme.minute(minute) + "#" + shard + "#" + seq : legacySk(minute, shard, seq, g);
                if ((isCurrent ? current : legacy).contains(sk)) {
                    continue;
                }
                (isCurrent ? current : legacy).add(sk);
                String slot = KeyScheme.partialSlot(sk);
                long had = expectedGen.getOrDefault(slot, -1L);
                boolean better = g > had || (g == had && isCurrent);
                if (!expected.containsKey(slot) || better) {
                    expected.put(slot, sk);
                    expectedGen.put(slot, g);
                }
            }
            List<String> feed = new ArrayList<>(current);
            feed.addAll(legacy);
            feed.sort(DYNAMO_ORDER);
            assertThat(feed.subList(0, legacy.size()))
                    .as("the earlier layout sorts first")
                    .containsExactlyInAnyOrderElementsOf(legacy);
            List<String> out = run(feed.stream().map(sk -> item(sk, sk)).toList());
            assertThat(out).as("fed %s", feed).containsExactlyInAnyOrderElementsOf(expected.values());
            Set<String> currentSlots = new HashSet<>();
            current.forEach(sk -> currentSlots.add(KeyScheme.partialSlot(sk)));
            shared += legacy.stream()
                    .filter(sk -> currentSlots.contains(KeyScheme.partialSlot(sk)))
                    .count();
        }
        assertThat(shared)
                .as("earlier-layout partials sharing a slot with a current one")
                .isGreaterThan(500);
    }

    /** One reader reused for several partitions: nothing of a partition (held, slots, earlier partials) leaks. */
    @Test
    void latestPartials_whenReusedAcrossPartitions_startsEachAfresh() {
        List<String> out = new ArrayList<>();
        LatestPartials latest = new LatestPartials(i -> out.add(i.get("tag").s()));
        String current = KeyScheme.partialSk(MINUTE, SHARD, "100", 5);
        String legacy = legacySk(MINUTE, SHARD, "100", 4);
        // partition a: legacy and current of one slot, in key order
        latest.accept(item(legacy, "a-legacy"));
        latest.accept(item(current, "a-current"));
        latest.finish();
        // partition b: only the legacy partial of the same slot string: it counts
        latest.accept(item(legacy, "b-legacy"));
        latest.finish();
        // partition c: the current partial, of an older generation than the one held in a
        latest.accept(item(KeyScheme.partialSk(MINUTE, SHARD, "100", 1), "c-current"));
        latest.finish();
        latest.finish(); // an empty partition
        assertThat(out).containsExactly("a-current", "b-legacy", "c-current");
    }

    /** The documented decode of a plain compact sequence (docs/storage.md) inverts compactSequence. */
    @ParameterizedTest
    @CsvSource({
        "0",
        "500",
        "255",
        "49590338271490256608559692538361571095921575989136588898",
        "10000000000000000000000000000000000000000000000000000000"
    })
    void compactSequence_whenPlainNumber_decodesAsTheDocsSay(String seq) {
        String c = KeyScheme.compactSequence(seq);
        byte[] bytes = java.util.Base64.getUrlDecoder().decode(c);
        assertThat(new java.math.BigInteger(1, bytes).toString()).isEqualTo(seq);
    }
}
