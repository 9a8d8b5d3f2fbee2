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
package dev.pulse.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PulseConfigTest {

    private static final String TABLE = "pulse-series";
    private static final String DLQ = "https://sqs.us-east-1.amazonaws.com/123456789012/pulse-dlq";

    private static Map<String, String> env(String... kv) {
        Map<String, String> m = new HashMap<>();
        m.put("TABLE_NAME", TABLE);
        m.put("DLQ_URL", DLQ);
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void fromEnvironment_whenOnlyRequiredSet_usesDocumentedDefaults() {
        PulseConfig c = PulseConfig.fromEnvironment(env());

        // MAX_RECORD_AGE_SECONDS -1 (no limit): a record may be ingested until it leaves the stream, 24 hours.
        assertThat(c)
                .isEqualTo(new PulseConfig(
                        TABLE,
                        DLQ,
                        Duration.ofDays(17),
                        8,
                        50,
                        5_000,
                        3_000,
                        Duration.ofDays(14),
                        Duration.ofHours(2),
                        Duration.ofDays(35),
                        Duration.ofDays(3650),
                        Duration.ofHours(24),
                        Duration.ofSeconds(60),
                        Duration.ofMinutes(5)));
        assertThat(c.markSettle()).isEqualTo(Duration.ofSeconds(130));
    }

    @Test
    void fromEnvironment_whenEverythingSet_readsEveryVariable() {
        PulseConfig c = PulseConfig.fromEnvironment(env(
                "PARTIAL_TTL_DAYS",
                "7",
                "WRITE_CONCURRENCY",
                "64",
                "RETRY_BASE_MS",
                "10",
                "RETRY_CAP_MS",
                "60000",
                "SAFETY_MARGIN_MS",
                "0",
                "ACCEPT_PAST_SECONDS",
                "3600",
                "ACCEPT_FUTURE_SECONDS",
                "0",
                "HOURLY_TTL_DAYS",
                "90",
                "DAILY_TTL_DAYS",
                "730",
                "MAX_RECORD_AGE_SECONDS",
                "600",
                "STREAM_RETENTION_HOURS",
                "48",
                "INGEST_TIMEOUT_SECONDS",
                "900",
                "COMPACT_GRACE_SECONDS",
                "3600"));

        assertThat(c)
                .isEqualTo(new PulseConfig(
                        TABLE,
                        DLQ,
                        Duration.ofDays(7),
                        64,
                        10,
                        60_000,
                        0,
                        Duration.ofHours(1),
                        Duration.ZERO,
                        Duration.ofDays(90),
                        Duration.ofDays(730),
                        Duration.ofMinutes(10),
                        Duration.ofSeconds(900),
                        Duration.ofHours(1)));
    }

    @Test
    void fromEnvironment_whenValuesPaddedWithWhitespace_stripsThem() {
        PulseConfig c = PulseConfig.fromEnvironment(
                Map.of("TABLE_NAME", " t \n", "DLQ_URL", "\tq ", "WRITE_CONCURRENCY", " 4 "));

        assertThat(c.tableName()).isEqualTo("t");
        assertThat(c.deadLetterUrl()).isEqualTo("q");
        assertThat(c.writeConcurrency()).isEqualTo(4);
    }

    @ParameterizedTest(name = "[{index}] ''{0}''")
    @ValueSource(strings = {"", "   "})
    void fromEnvironment_whenOptionalBlank_usesDefault(String blank) {
        assertThat(PulseConfig.fromEnvironment(env("WRITE_CONCURRENCY", blank)).writeConcurrency())
                .isEqualTo(8);
    }

    @Test
    void fromEnvironment_whenRequiredMissing_listsBothInOneException() {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: TABLE_NAME is required; DLQ_URL is required");
    }

    @ParameterizedTest(name = "[{index}] ''{0}''")
    @ValueSource(strings = {"", " ", "\t"})
    void fromEnvironment_whenRequiredBlank_reportsRequired(String blank) {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env("TABLE_NAME", blank)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: TABLE_NAME is required");
    }

    @Test
    void fromEnvironment_whenManyProblems_listsEveryOneOnce() {
        Map<String, String> env = Map.of(
                "DLQ_URL",
                DLQ,
                "PARTIAL_TTL_DAYS",
                "0",
                "WRITE_CONCURRENCY",
                "eight",
                "RETRY_BASE_MS",
                "1.5",
                "SAFETY_MARGIN_MS",
                "-1",
                "ACCEPT_FUTURE_SECONDS",
                "604801");

        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: TABLE_NAME is required"
                        + "; PARTIAL_TTL_DAYS must be between 1 and 3650, got 0"
                        + "; WRITE_CONCURRENCY must be an integer, got 'eight'"
                        + "; RETRY_BASE_MS must be an integer, got '1.5'"
                        + "; SAFETY_MARGIN_MS must be between 0 and 600000, got -1"
                        + "; ACCEPT_FUTURE_SECONDS must be between 0 and 604800, got 604801");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "PARTIAL_TTL_DAYS,      0,           1,  3650",
        "PARTIAL_TTL_DAYS,      3651,        1,  3650",
        "WRITE_CONCURRENCY,     0,           1,  64",
        "WRITE_CONCURRENCY,     65,          1,  64",
        "RETRY_BASE_MS,         0,           1,  10000",
        "RETRY_CAP_MS,          60001,       1,  60000",
        "SAFETY_MARGIN_MS,      600001,      0,  600000",
        "ACCEPT_PAST_SECONDS,   59,          60, 315360000",
        "ACCEPT_PAST_SECONDS,   315360001,   60, 315360000",
        "ACCEPT_FUTURE_SECONDS, -1,          0,  604800",
        "MAX_RECORD_AGE_SECONDS, -2,         -1, 604800",
        "MAX_RECORD_AGE_SECONDS, 604801,     -1, 604800",
        "STREAM_RETENTION_HOURS, 23,         24, 8760",
        "STREAM_RETENTION_HOURS, 8761,       24, 8760",
    })
    void fromEnvironment_whenOutOfRange_namesVariableRangeAndValue(String name, String value, long min, long max) {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env(name, value)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(name + " must be between " + min + " and " + max + ", got " + value);
    }

    @ParameterizedTest(name = "[{index}] ''{0}''")
    @ValueSource(strings = {"abc", "1.5", "1e3", "0x10", "9223372036854775808", "12ms", "--1"})
    void fromEnvironment_whenNotAnInteger_namesVariableAndValue(String value) {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env("WRITE_CONCURRENCY", value)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: WRITE_CONCURRENCY must be an integer, got '" + value + "'");
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource({
        "WRITE_CONCURRENCY,     1",
        "WRITE_CONCURRENCY,     64",
        "SAFETY_MARGIN_MS,      0",
        "SAFETY_MARGIN_MS,      600000",
        "ACCEPT_PAST_SECONDS,   60",
        "ACCEPT_FUTURE_SECONDS, 604800",
        "MAX_RECORD_AGE_SECONDS, -1",
        "MAX_RECORD_AGE_SECONDS, 60",
        "MAX_RECORD_AGE_SECONDS, 604800",
        "STREAM_RETENTION_HOURS, 24",
    })
    void fromEnvironment_whenOnRangeBoundary_accepts(String name, String value) {
        assertThat(PulseConfig.fromEnvironment(env(name, value))).isNotNull();
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @ValueSource(strings = {"0", "1", "59"})
    void fromEnvironment_whenRecordAgeBetweenZeroAndAMinute_refusesNamingBothForms(String value) {
        // The event source mapping takes -1 or 60..604800; 0..59 is neither "no limit" nor a valid limit.
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env("MAX_RECORD_AGE_SECONDS", value)))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: MAX_RECORD_AGE_SECONDS must be -1 (no limit) or between 60 and"
                        + " 604800, got " + value);
    }

    @ParameterizedTest(name = "MAX_RECORD_AGE_SECONDS={0}, STREAM_RETENTION_HOURS={1}")
    @CsvSource({
        // -1: no limit, so a record is ingested until it leaves the stream
        "-1,     24,  86400",
        "-1,     168, 604800",
        "'',     48,  172800",
        // a limit shorter than the retention is the record age
        "600,    24,  600",
        "3600,   168, 3600",
        // a limit longer than the retention: the record leaves the stream first
        "604800, 24,  86400",
        "604800, 168, 604800",
    })
    void fromEnvironment_recordAge_isTheLimitOrTheStreamRetentionWhicheverIsShorter(
            String age, long hours, long expected) {
        // PARTIAL_TTL_DAYS 23 outlives every combination here (7 days of record age needs more than 22.05).
        PulseConfig c = PulseConfig.fromEnvironment(env(
                "MAX_RECORD_AGE_SECONDS",
                age,
                "STREAM_RETENTION_HOURS",
                Long.toString(hours),
                "PARTIAL_TTL_DAYS",
                "23"));

        assertThat(c.maxRecordAge()).isEqualTo(Duration.ofSeconds(expected));
    }

    @ParameterizedTest(name = "MAX_RECORD_AGE_SECONDS={0}")
    @ValueSource(strings = {"-1", "60", "3600", "604800"})
    void fromEnvironment_whenTheStreamKeepsRecordsLongerThanThePartialsAllow_rejectsWhateverTheRecordAge(String age) {
        // A discarded batch is redriven from the stream for as long as the stream keeps it: with 7 days of retention a
        // datapoint can arrive 14 + 7 days after its hour, past the default 17 days of partials.
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(
                        env("MAX_RECORD_AGE_SECONDS", age, "STREAM_RETENTION_HOURS", "168")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: PARTIAL_TTL_DAYS (17) must exceed ACCEPT_PAST_SECONDS (1209600)"
                        + " + STREAM_RETENTION_HOURS (168 = 604800 s: a discarded batch is redriven from the stream until"
                        + " then, whatever MAX_RECORD_AGE_SECONDS is) + COMPACT_GRACE_SECONDS (300) + the mark settle time"
                        + " (2 x (INGEST_TIMEOUT_SECONDS + 5) = 130) + 1 hour + 1 day of builder lag = 22.05 days, or a late"
                        + " or redriven datapoint would rebuild an hour whose other partials have expired");
    }

    @Test
    void fromEnvironment_whenStreamRetentionIsAYear_needsPartialsKeptPastItWhateverTheRecordAge() {
        // 14 days + 365 days + 1 h + 300 s + 130 s + 1 day = 380.05 days.
        Map<String, String> year = env(
                "STREAM_RETENTION_HOURS",
                "8760",
                "MAX_RECORD_AGE_SECONDS",
                "3600",
                "PARTIAL_TTL_DAYS",
                "380",
                "HOURLY_TTL_DAYS",
                "382",
                "DAILY_TTL_DAYS",
                "382");
        Map<String, String> yearAndADay = new HashMap<>(year);
        yearAndADay.put("PARTIAL_TTL_DAYS", "381");

        assertThatThrownBy(() -> PulseConfig.fromEnvironment(year))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("PARTIAL_TTL_DAYS (380) must exceed")
                .hasMessageContaining("= 380.05 days");
        assertThat(PulseConfig.fromEnvironment(yearAndADay).maxRecordAge()).isEqualTo(Duration.ofHours(1));
    }

    @ParameterizedTest(name = "STREAM_RETENTION_HOURS={0}, PARTIAL_TTL_DAYS={1}, ACCEPT_PAST_SECONDS={2}")
    @CsvSource({
        "24,   17,  1209600",
        "168,  23,  1209600",
        "24,   3,   82369",
        "8760, 381, 1209600",
        "48,   5,   3600",
    })
    void redriveWindow_whenTheSettingsAreAccepted_outlastsTheStreamRetention(long hours, long ttlDays, long past) {
        // Every record the stream still holds can be redriven, so a refusal by the window means the stream keeps
        // records longer than STREAM_RETENTION_HOURS says.
        PulseConfig c = PulseConfig.fromEnvironment(env(
                "STREAM_RETENTION_HOURS",
                Long.toString(hours),
                "PARTIAL_TTL_DAYS",
                Long.toString(ttlDays),
                "ACCEPT_PAST_SECONDS",
                Long.toString(past),
                "HOURLY_TTL_DAYS",
                Long.toString(ttlDays + 1),
                "DAILY_TTL_DAYS",
                Long.toString(ttlDays + 1)));

        assertThat(c.redriveWindow())
                .isGreaterThan(Duration.ofHours(hours))
                .isEqualTo(Duration.ofDays(ttlDays)
                        .minusSeconds(past)
                        .minusHours(1)
                        .minusSeconds(300 + 130)
                        .minusDays(1));
    }

    @Test
    void redriveWindow_atTheDefaults_isTheTwoDaysThePartialsOutliveTheLateWindowLessTheBuildAllowances() {
        // 17 days - 14 days - 1 h - 300 s - 130 s - 1 day = 168,770 s, against 86,400 s of stream retention.
        assertThat(PulseConfig.fromEnvironment(env()).redriveWindow()).isEqualTo(Duration.ofSeconds(168_770));
    }

    @Test
    void fromEnvironment_whenCapBelowBase_reportsBoth() {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env("RETRY_BASE_MS", "200", "RETRY_CAP_MS", "100")))
                .isInstanceOf(ConfigException.class)
                .hasMessage("invalid configuration: RETRY_CAP_MS (100) must be >= RETRY_BASE_MS (200)");
    }

    @Test
    void fromEnvironment_whenCapEqualsBase_accepts() {
        PulseConfig c = PulseConfig.fromEnvironment(env("RETRY_BASE_MS", "100", "RETRY_CAP_MS", "100"));

        assertThat(c.retryBaseMillis()).isEqualTo(c.retryCapMillis()).isEqualTo(100);
    }

    @Test
    void fromEnvironment_whenPartialsOutliveTheLateWindowByExactlyTheMinimum_acceptsTheSmallestTtl() {
        // 82,369 s + 86,400 s (record age: 24 h of stream retention at -1) + 1 h + 300 s grace + 130 s settle
        // + 1 day of lag = 259,199 s, one second under 3 days; a second more of ACCEPT_PAST_SECONDS reaches it.
        PulseConfig c = PulseConfig.fromEnvironment(env(
                "ACCEPT_PAST_SECONDS",
                "82369",
                "PARTIAL_TTL_DAYS",
                "3",
                "HOURLY_TTL_DAYS",
                "4",
                "DAILY_TTL_DAYS",
                "4"));

        assertThat(c.partialTtl()).isEqualTo(Duration.ofDays(3));
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env(
                        "ACCEPT_PAST_SECONDS",
                        "82370",
                        "PARTIAL_TTL_DAYS",
                        "3",
                        "HOURLY_TTL_DAYS",
                        "4",
                        "DAILY_TTL_DAYS",
                        "4")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("PARTIAL_TTL_DAYS (3) must exceed ACCEPT_PAST_SECONDS (82370)");
    }

    @Test
    void fromEnvironment_whenRecordAgeIsLimited_theStreamRetentionStillEntersTheRule() {
        // 82,800 s + 3,600 s of MAX_RECORD_AGE_SECONDS would fit 3 days, but a discarded batch is redriven up to the
        // 24 h of stream retention after arrival: 82,800 + 86,400 + 3,600 + 300 + 130 + 86,400 s = 3.005 days.
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env(
                        "ACCEPT_PAST_SECONDS",
                        "82800",
                        "PARTIAL_TTL_DAYS",
                        "3",
                        "HOURLY_TTL_DAYS",
                        "4",
                        "DAILY_TTL_DAYS",
                        "4",
                        "MAX_RECORD_AGE_SECONDS",
                        "3600")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(
                        "PARTIAL_TTL_DAYS (3) must exceed ACCEPT_PAST_SECONDS (82800) + STREAM_RETENTION_HOURS (24 = 86400 s");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(
            delimiter = '|',
            value = {
                // the partials would expire before a late datapoint's hour is rebuilt
                // (16 days, the default before records waited for the stream's 24 h retention, is one of them)
                "PARTIAL_TTL_DAYS=16 | PARTIAL_TTL_DAYS (16) must exceed ACCEPT_PAST_SECONDS (1209600) + STREAM_RETENTION_HOURS (24 = 86400 s: a discarded batch is redriven from the stream until then, whatever MAX_RECORD_AGE_SECONDS is) + COMPACT_GRACE_SECONDS (300) + the mark settle time (2 x (INGEST_TIMEOUT_SECONDS + 5) = 130) + 1 hour + 1 day of builder lag = 16.05 days",
                "PARTIAL_TTL_DAYS=14 | PARTIAL_TTL_DAYS (14) must exceed",
                "ACCEPT_PAST_SECONDS=1296000 | PARTIAL_TTL_DAYS (17) must exceed ACCEPT_PAST_SECONDS (1296000)",
                "STREAM_RETENTION_HOURS=48 | PARTIAL_TTL_DAYS (17) must exceed ACCEPT_PAST_SECONDS (1209600) + STREAM_RETENTION_HOURS (48 = 172800 s",
                // the record age limit does not shorten what the redrive can bring
                "STREAM_RETENTION_HOURS=168,MAX_RECORD_AGE_SECONDS=3600 | PARTIAL_TTL_DAYS (17) must exceed ACCEPT_PAST_SECONDS (1209600) + STREAM_RETENTION_HOURS (168 = 604800 s",
                "COMPACT_GRACE_SECONDS=86400 | PARTIAL_TTL_DAYS (17) must exceed ACCEPT_PAST_SECONDS (1209600) + STREAM_RETENTION_HOURS (24 = 86400 s: a discarded batch is redriven from the stream until then, whatever MAX_RECORD_AGE_SECONDS is) + COMPACT_GRACE_SECONDS (86400)",
                // a day's rebuild would read hourly rollups that have expired
                "HOURLY_TTL_DAYS=17 | HOURLY_TTL_DAYS (17) must be >= PARTIAL_TTL_DAYS + 1 (18)",
                // past the minute detail, nothing would answer
                "DAILY_TTL_DAYS=34 | DAILY_TTL_DAYS (34) must be >= HOURLY_TTL_DAYS (35)",
            })
    void fromEnvironment_whenRetentionCouldLoseData_rejectsNamingTheRule(String setting, String message) {
        String[] kv = setting.split("[=,]");

        assertThatThrownBy(() -> PulseConfig.fromEnvironment(env(kv)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(message);
    }

    @Test
    void fromEnvironment_whenEveryRetentionRuleBroken_listsEveryOne() {
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(
                        env("PARTIAL_TTL_DAYS", "10", "HOURLY_TTL_DAYS", "5", "DAILY_TTL_DAYS", "2")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("PARTIAL_TTL_DAYS (10) must exceed")
                .hasMessageContaining("HOURLY_TTL_DAYS (5) must be >= PARTIAL_TTL_DAYS + 1 (11)")
                .hasMessageContaining("DAILY_TTL_DAYS (2) must be >= HOURLY_TTL_DAYS (5)");
    }

    @Test
    void fromEnvironment_whenTheSettleTimeTipsTheLateWindowOverTheTtl_rejects() {
        // 15 days - 86,400 (record age) - 3,600 - 300 - 86,400 s leaves ACCEPT_PAST_SECONDS + 1,000 s of margin for
        // the settle time: a 60 s ingest timeout (130 s settle) fits, a 900 s one (1,810 s settle) does not.
        Map<String, String> fits = env(
                "PARTIAL_TTL_DAYS",
                "15",
                "ACCEPT_PAST_SECONDS",
                Long.toString(15 * 86_400 - 86_400 - 3_600 - 300 - 86_400 - 1_000));
        Map<String, String> tipped = new HashMap<>(fits);
        tipped.put("INGEST_TIMEOUT_SECONDS", "900");

        assertThat(PulseConfig.fromEnvironment(fits).partialTtl()).isEqualTo(Duration.ofDays(15));
        assertThatThrownBy(() -> PulseConfig.fromEnvironment(tipped))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("the mark settle time (2 x (INGEST_TIMEOUT_SECONDS + 5) = 1810)");
    }
}
