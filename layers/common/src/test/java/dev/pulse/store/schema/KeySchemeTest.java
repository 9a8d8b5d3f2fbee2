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
package dev.pulse.store.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeySchemeTest {

    @ParameterizedTest(name = "{0} -> {1} / {2}")
    @CsvSource({
        "1763740800123, 2025-11-21T16, 2025-11-21T16:00",
        "1763740859999, 2025-11-21T16, 2025-11-21T16:00",
        "1763744399999, 2025-11-21T16, 2025-11-21T16:59",
        "1763744400000, 2025-11-21T17, 2025-11-21T17:00",
        "0,             1970-01-01T00, 1970-01-01T00:00",
        "1704067199999, 2023-12-31T23, 2023-12-31T23:59",
        "1704067200000, 2024-01-01T00, 2024-01-01T00:00",
        "1709164800000, 2024-02-29T00, 2024-02-29T00:00",
        "-1,            1969-12-31T23, 1969-12-31T23:59",
        "-62135596800000, 0001-01-01T00, 0001-01-01T00:00",
        "253402300799999, 9999-12-31T23, 9999-12-31T23:59",
    })
    void hourAndMinute_whenEpochMillis_formatInUtc(long epochMillis, String hour, String minute) {
        assertThat(KeyScheme.hour(epochMillis)).isEqualTo(hour);
        assertThat(KeyScheme.minute(epochMillis)).isEqualTo(minute);
    }

    @Test
    void hourAndMinute_whenRandomInstants_matchJavaTimeFormatting() {
        DateTimeFormatter hourFormat =
                DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH").withZone(ZoneOffset.UTC);
        DateTimeFormatter minuteFormat =
                DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm").withZone(ZoneOffset.UTC);
        Random random = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            long t = random.nextLong(0, 253402300799999L);
            assertThat(KeyScheme.hour(t)).as("hour of %d", t).isEqualTo(hourFormat.format(Instant.ofEpochMilli(t)));
            assertThat(KeyScheme.minute(t))
                    .as("minute of %d", t)
                    .isEqualTo(minuteFormat.format(Instant.ofEpochMilli(t)));
        }
    }

    @Test
    void partialPk_whenSeriesAndMinute_prefixesAndAppendsUtcHour() {
        assertThat(KeyScheme.partialPk("checkout.latency{op=Pay,service=checkout}", 1763740800123L))
                .isEqualTo("P#checkout.latency{op=Pay,service=checkout}#2025-11-21T16");
    }

    @Test
    void partialPk_whenSeriesContainsHash_hourSuffixStillFixedWidth() {
        String pk = KeyScheme.partialPk("a#2025-11-21T16{}", 1763740800000L);

        assertThat(pk).isEqualTo("P#a#2025-11-21T16{}#2025-11-21T16");
        assertThat(pk.substring(pk.length() - 13)).isEqualTo("2025-11-21T16");
    }

    @Test
    void partialSk_whenMinuteShardSequenceAndGeneration_joinsCompactFormsWithHash() {
        String seq = "49590338271490256608559692538361571095921575989136588898";

        String sk = KeyScheme.partialSk(1763740860000L, "shardId-000000000001", seq, 12);

        assertThat(sk)
                .isEqualTo("m01#1#"
                        + java.util.Base64.getUrlEncoder()
                                .withoutPadding()
                                .encodeToString(new java.math.BigInteger(seq).toByteArray())
                        + "#12");
        assertThat(sk).hasSize(3 + 1 + 1 + 1 + 32 + 1 + 2); // against 16 + 1 + 20 + 1 + 56 + 1 + 2 before
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "shardId-000000000000, 0",
        "shardId-000000000042, 42",
        "shardId-4, =shardId-4",
        "shardId-0000000000042, =shardId-0000000000042",
        "'shard#1', '=shard%231'",
        "'a b', '=a%20b'",
        "'50%', '=50%25'",
        "shard-0, =shard-0",
        "shardId-, =shardId-",
        "shardId-0000000000000000000001, =shardId-0000000000000000000001",
        "shardId-12a, =shardId-12a"
    })
    void compactShard_whenKinesisFormOrOther_shortensOnlyTheKinesisForm(String shardId, String compact) {
        assertThat(KeyScheme.compactShard(shardId)).isEqualTo(compact);
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "0, AA",
        "500, AfQ",
        "255, AP8",
        "500.3, AfQ.3",
        "0500, =0500",
        "500., =500.",
        "500.x, =500.x",
        "abc, =abc",
        "'', ="
    })
    void compactSequence_whenNumberSubSequenceOrOther_encodesNumbersAndKeepsTheRestWhole(String seq, String compact) {
        assertThat(KeyScheme.compactSequence(seq)).isEqualTo(compact);
    }

    @Test
    void compactSequence_whenManySequences_isInjectiveAndNeverHoldsHash() {
        java.util.Set<String> seen = new java.util.HashSet<>();
        Random random = new Random(3);
        List<String> inputs = new ArrayList<>(List.of("0", "00", "1", "1.0", "1.00", "10", "=", "=1", "AA"));
        for (int i = 0; i < 20_000; i++) {
            String n = new java.math.BigInteger(random.nextInt(1, 190), random).toString();
            inputs.add(random.nextBoolean() ? n : n + "." + random.nextInt(0, 10_000));
        }
        for (String in : new java.util.LinkedHashSet<>(inputs)) {
            String c = KeyScheme.compactSequence(in);
            assertThat(c).as(in).doesNotContain("#");
            assertThat(seen.add(c))
                    .as("%s encodes to %s, as an earlier sequence did", in, c)
                    .isTrue();
        }
    }

    @Test
    void partialSlot_whenGeneration_isTheKeyWithoutIt() {
        String sk = KeyScheme.partialSk(1763740860000L, "shardId-000000000001", "495", 12);

        assertThat(KeyScheme.partialSlot(sk)).isEqualTo("m01#1#Ae8");
        assertThat(KeyScheme.partialGeneration(sk)).isEqualTo(12);
        assertThat(KeyScheme.legacyPartial(sk)).isFalse();
    }

    @Test
    void partialSlot_whenWrittenBeforeGenerations_isTheWholeKeyAndGenerationZero() {
        String noGeneration = "m01#1#Ae8";

        assertThat(KeyScheme.partialSlot(noGeneration)).isEqualTo(noGeneration);
        assertThat(KeyScheme.partialGeneration(noGeneration)).isZero();
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.CsvSource({
        "2025-11-21T16:01#shardId-000000000001#495#12, 12",
        "2025-11-21T16:01#shardId-000000000001#495, 0"
    })
    void partialSlot_whenKeyInLayoutBeforeCompactKeys_isTheSlotOfTheSameRecordNow(String legacy, long generation) {
        assertThat(KeyScheme.legacyPartial(legacy)).isTrue();
        assertThat(KeyScheme.partialSlot(legacy))
                .isEqualTo(
                        KeyScheme.partialSlot(KeyScheme.partialSk(1763740860000L, "shardId-000000000001", "495", 99)));
        assertThat(KeyScheme.partialGeneration(legacy)).isEqualTo(generation);
        assertThat(KeyScheme.partialMinute(0L, legacy)).isEqualTo(1763740860000L);
    }

    @Test
    void partialMinute_whenEveryMinuteOfAnHour_comesBackFromTheKey() {
        long hour = java.time.Instant.parse("2026-11-21T16:00:00Z").toEpochMilli();
        String pk = KeyScheme.partialPk("s{}", hour);
        for (int m = 0; m < 60; m++) {
            long minute = hour + m * 60_000L;
            String sk = KeyScheme.partialSk(minute + 59_999L, "shardId-000000000003", "7", 1);
            assertThat(KeyScheme.partialMinute(hour, sk)).isEqualTo(minute);
            assertThat(KeyScheme.partialMinute(pk, sk)).isEqualTo(minute);
        }
    }

    @Test
    void partialSk_whenSlotsShareAPrefix_keepsEachSlotsGenerationsAdjacent() {
        // LatestPartials holds back one partial at a time: a slot's keys must sort together whatever the other slots.
        Random random = new Random(5);
        List<String> sks = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            String seq = Integer.toString(random.nextInt(1, 300))
                    + (random.nextBoolean() ? "" : "." + random.nextInt(0, 12));
            String shard = "shardId-" + "0".repeat(10) + random.nextInt(10, 13);
            sks.add(KeyScheme.partialSk(
                    1763740860000L + random.nextInt(0, 3) * 60_000L, shard, seq, random.nextInt(0, 120)));
        }
        java.util.Collections.sort(sks);
        java.util.Set<String> closed = new java.util.HashSet<>();
        String current = null;
        for (String sk : sks) {
            String slot = KeyScheme.partialSlot(sk);
            if (!slot.equals(current)) {
                assertThat(closed.add(slot))
                        .as("slot %s appears again after other slots", slot)
                        .isTrue();
                current = slot;
            }
        }
    }

    @Test
    void catalogPk_whenName_prefixesC() {
        assertThat(KeyScheme.catalogPk("checkout.latency")).isEqualTo("C#checkout.latency");
    }

    @Test
    void minute_whenSortedAsStrings_sortsChronologically() {
        // Sort keys compare lexicographically in DynamoDB; the time prefix must agree with time order.
        List<Long> times = new ArrayList<>();
        Random random = new Random(2);
        for (int i = 0; i < 2_000; i++) {
            times.add(random.nextLong(0, 253402300799999L));
        }
        List<String> labels = times.stream().sorted().map(KeyScheme::minute).toList();

        assertThat(labels).isSorted();
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"lat{op=Pay}", "a#b{k=#v}", "x"})
    void seriesKey_whenPartialOrRollupPk_givesBackTheSeriesKey(String series) {
        long t = java.time.Instant.parse("2026-11-21T16:05:00Z").toEpochMilli();

        org.assertj.core.api.Assertions.assertThat(java.util.List.of(
                        KeyScheme.seriesKey(KeyScheme.partialPk(series, t)),
                        KeyScheme.seriesKey(KeyScheme.hourlyPk(series, t)),
                        KeyScheme.seriesKey(KeyScheme.dailyPk(series, t))))
                .containsOnly(series);
    }

    @org.junit.jupiter.api.Test
    void hourStartAndDayStart_whenFormatted_parseBackToThePeriodStart() {
        long hour = java.time.Instant.parse("2026-11-21T16:00:00Z").toEpochMilli();
        long day = java.time.Instant.parse("2026-11-21T00:00:00Z").toEpochMilli();

        org.assertj.core.api.Assertions.assertThat(KeyScheme.hourStart(KeyScheme.hour(hour + 59 * 60_000)))
                .isEqualTo(hour);
        org.assertj.core.api.Assertions.assertThat(KeyScheme.dayStart(KeyScheme.day(day + 86_399_000)))
                .isEqualTo(day);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeyScheme.seriesKey("C#lat"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
