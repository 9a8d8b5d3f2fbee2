package dev.pulse.store;

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
        DateTimeFormatter hourFormat = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH").withZone(ZoneOffset.UTC);
        DateTimeFormatter minuteFormat = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm").withZone(ZoneOffset.UTC);
        Random random = new Random(1);
        for (int i = 0; i < 10_000; i++) {
            long t = random.nextLong(0, 253402300799999L);
            assertThat(KeyScheme.hour(t)).as("hour of %d", t).isEqualTo(hourFormat.format(Instant.ofEpochMilli(t)));
            assertThat(KeyScheme.minute(t)).as("minute of %d", t).isEqualTo(minuteFormat.format(Instant.ofEpochMilli(t)));
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
    void partialSk_whenMinuteShardSequenceAndGeneration_joinsWithHash() {
        assertThat(KeyScheme.partialSk(1763740860000L, "shardId-000000000001", "4959033827149025660855969253836157", 12))
                .isEqualTo("2025-11-21T16:01#shardId-000000000001#4959033827149025660855969253836157#12");
    }

    @Test
    void partialSlot_whenGeneration_isTheKeyWithoutIt() {
        String sk = KeyScheme.partialSk(1763740860000L, "shardId-000000000001", "495", 12);

        assertThat(KeyScheme.partialSlot(sk)).isEqualTo("2025-11-21T16:01#shardId-000000000001#495");
        assertThat(KeyScheme.partialGeneration(sk)).isEqualTo(12);
    }

    @Test
    void partialSlot_whenWrittenBeforeGenerations_isTheWholeKeyAndGenerationZero() {
        String legacy = "2025-11-21T16:01#shardId-000000000001#495";

        assertThat(KeyScheme.partialSlot(legacy)).isEqualTo(legacy);
        assertThat(KeyScheme.partialGeneration(legacy)).isZero();
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

        org.assertj.core.api.Assertions.assertThat(java.util.List.of(KeyScheme.seriesKey(KeyScheme.partialPk(series, t)),
                KeyScheme.seriesKey(KeyScheme.hourlyPk(series, t)), KeyScheme.seriesKey(KeyScheme.dailyPk(series, t))))
                .containsOnly(series);
    }

    @org.junit.jupiter.api.Test
    void hourStartAndDayStart_whenFormatted_parseBackToThePeriodStart() {
        long hour = java.time.Instant.parse("2026-11-21T16:00:00Z").toEpochMilli();
        long day = java.time.Instant.parse("2026-11-21T00:00:00Z").toEpochMilli();

        org.assertj.core.api.Assertions.assertThat(KeyScheme.hourStart(KeyScheme.hour(hour + 59 * 60_000))).isEqualTo(hour);
        org.assertj.core.api.Assertions.assertThat(KeyScheme.dayStart(KeyScheme.day(day + 86_399_000))).isEqualTo(day);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> KeyScheme.seriesKey("C#lat"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
