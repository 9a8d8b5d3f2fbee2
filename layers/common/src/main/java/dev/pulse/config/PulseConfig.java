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

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Every setting a function reads, taken from environment variables declared once in template.yaml, checked
 * together at start-up: a misconfigured function fails its first invocation with one message naming every
 * bad variable, instead of failing later on a code path that happens to need it.
 *
 * @param tableName         {@code TABLE_NAME}: the time-series table
 * @param deadLetterUrl     {@code DLQ_URL}: SQS queue URL for poison records
 * @param partialTtl        {@code PARTIAL_TTL_DAYS} (default 17): retention of minute partials
 * @param writeConcurrency  {@code WRITE_CONCURRENCY} (default 8, 1-64): BatchWriteItem calls in flight
 * @param retryBaseMillis   {@code RETRY_BASE_MS} (default 50): first backoff ceiling
 * @param retryCapMillis    {@code RETRY_CAP_MS} (default 5000): largest backoff ceiling
 * @param safetyMarginMillis {@code SAFETY_MARGIN_MS} (default 3000): time kept back from the invocation's
 *                          remaining time to report a failure
 * @param acceptPast        {@code ACCEPT_PAST_SECONDS} (default 14 days): oldest accepted datapoint
 * @param acceptFuture      {@code ACCEPT_FUTURE_SECONDS} (default 2 hours): newest accepted datapoint
 * @param hourlyTtl         {@code HOURLY_TTL_DAYS} (default 35): retention of hourly rollups (minute detail)
 * @param dailyTtl          {@code DAILY_TTL_DAYS} (default 3650): retention of daily rollups
 * @param maxRecordAge      how long after arrival the event source mapping still delivers a record:
 *                          {@code MAX_RECORD_AGE_SECONDS} (the ingest mapping's MaximumRecordAgeInSeconds), or at its
 *                          default -1 (no limit) {@code STREAM_RETENTION_HOURS} (default 24), when the record leaves
 *                          the stream. The retention rule does not use it: a batch the mapping discards is redriven
 *                          from the stream, so data can arrive up to {@code STREAM_RETENTION_HOURS} late whatever this is
 * @param ingestTimeout     {@code INGEST_TIMEOUT_SECONDS} (default 60): IngestFunction's timeout, the longest a
 *                          write announced by a compaction mark can take to land
 * @param compactGrace        {@code COMPACT_GRACE_SECONDS} (default 300): how long after a period ends it is built
 *
 * <p>Retention must not lose data. A datapoint is accepted up to {@code ACCEPT_PAST_SECONDS} before its record's
 * arrival, and its record is stored up to {@code STREAM_RETENTION_HOURS} after arrival: by live delivery (until
 * {@code MAX_RECORD_AGE_SECONDS}, or until the record leaves the stream at -1) or by the redrive of a discarded
 * batch, which reads the records back from the stream and so works until they leave it, whatever
 * {@code MAX_RECORD_AGE_SECONDS} is. Its hour is then rebuilt from all of that hour's partials, so those must still
 * exist; and its day is rebuilt from the day's hourly rollups, so those must live at least as long. Hence
 * {@code PARTIAL_TTL_DAYS} > late window + stream retention + an hour + the grace + the mark settle time + a day of
 * builder lag, {@code HOURLY_TTL_DAYS} >= {@code PARTIAL_TTL_DAYS} + 1, {@code DAILY_TTL_DAYS} >= {@code HOURLY_TTL_DAYS}.
 * What the first rule leaves over the stream retention is the {@link #redriveWindow()}.
 */
public record PulseConfig(
        String tableName,
        String deadLetterUrl,
        Duration partialTtl,
        int writeConcurrency,
        long retryBaseMillis,
        long retryCapMillis,
        long safetyMarginMillis,
        Duration acceptPast,
        Duration acceptFuture,
        Duration hourlyTtl,
        Duration dailyTtl,
        Duration maxRecordAge,
        Duration ingestTimeout,
        Duration compactGrace) {

    /** Builder lag the retention rules allow for: a day without builds loses nothing. */
    public static final Duration BUILD_LAG_ALLOWANCE = Duration.ofDays(1);

    /**
     * For a function's own config class, which lists every bad setting in one message: the shared settings, or null
     * with their problems added to {@code problems}.
     */
    public static PulseConfig fromEnvironment(Map<String, String> env, List<String> problems) {
        try {
            return fromEnvironment(env);
        } catch (ConfigException e) {
            problems.add(e.getMessage().replaceFirst("^invalid configuration: ", ""));
            return null;
        }
    }

    /** {@code AWS_REGION} (else {@code AWS_DEFAULT_REGION}); a problem added to {@code problems} when neither is set. */
    public static String region(Map<String, String> env, List<String> problems) {
        String region = env.getOrDefault("AWS_REGION", env.getOrDefault("AWS_DEFAULT_REGION", ""));
        if (region.isBlank()) {
            problems.add("AWS_REGION is required (the Lambda runtime sets it)");
        }
        return region;
    }

    /** Reads and validates; throws {@link ConfigException} listing every problem. */
    public static PulseConfig fromEnvironment(Map<String, String> env) {
        Reader r = new Reader(env);
        String table = r.required("TABLE_NAME");
        String dlq = r.required("DLQ_URL");
        long ttlDays = r.number("PARTIAL_TTL_DAYS", 17, 1, 3650);
        long concurrency = r.number("WRITE_CONCURRENCY", 8, 1, 64);
        long base = r.number("RETRY_BASE_MS", 50, 1, 10_000);
        long cap = r.number("RETRY_CAP_MS", 5_000, 1, 60_000);
        long margin = r.number("SAFETY_MARGIN_MS", 3_000, 0, 600_000);
        long past = r.number(
                "ACCEPT_PAST_SECONDS",
                Duration.ofDays(14).toSeconds(),
                60,
                Duration.ofDays(3650).toSeconds());
        long future = r.number(
                "ACCEPT_FUTURE_SECONDS",
                Duration.ofHours(2).toSeconds(),
                0,
                Duration.ofDays(7).toSeconds());
        long hourlyDays = r.number("HOURLY_TTL_DAYS", 35, 1, 3650);
        long dailyDays = r.number("DAILY_TTL_DAYS", 3650, 1, 36500);
        long ageSetting = r.number("MAX_RECORD_AGE_SECONDS", -1, -1, 604_800);
        long retentionHours = r.number("STREAM_RETENTION_HOURS", 24, 24, 8760);
        if (ageSetting >= 0 && ageSetting < 60) {
            r.problems.add("MAX_RECORD_AGE_SECONDS must be -1 (no limit) or between 60 and 604800, got " + ageSetting);
        }
        // Without a limit the mapping delivers a record until it leaves the stream.
        long recordAge = ageSetting < 0 ? retentionHours * 3600 : Math.min(ageSetting, retentionHours * 3600);
        long ingestTimeout = r.number("INGEST_TIMEOUT_SECONDS", 60, 1, 900);
        long grace = r.number("COMPACT_GRACE_SECONDS", 300, 60, 86_400);
        if (cap < base) {
            r.problems.add("RETRY_CAP_MS (" + cap + ") must be >= RETRY_BASE_MS (" + base + ")");
        }
        // Retention rules compare settings, so only once each one is valid on its own.
        boolean eachValid = r.problems.isEmpty();
        long settle = 2 * (ingestTimeout + 5);
        // The redrive reads a discarded batch back from the stream: data arrives up to the whole retention late.
        long latest = retentionHours * 3600;
        long needed = past + latest + 3600 + grace + settle + BUILD_LAG_ALLOWANCE.toSeconds();
        if (eachValid && ttlDays * 86_400 <= needed) {
            r.problems.add("PARTIAL_TTL_DAYS (" + ttlDays + ") must exceed ACCEPT_PAST_SECONDS (" + past
                    + ") + STREAM_RETENTION_HOURS (" + retentionHours + " = " + latest
                    + " s: a discarded batch is redriven"
                    + " from the stream until then, whatever MAX_RECORD_AGE_SECONDS is) + COMPACT_GRACE_SECONDS ("
                    + grace
                    + ") + the mark settle time (2 x (INGEST_TIMEOUT_SECONDS + 5) = " + settle
                    + ") + 1 hour + 1 day of builder lag = "
                    + String.format(java.util.Locale.ROOT, "%.2f", needed / 86_400.0)
                    + " days, or a late or redriven datapoint would rebuild an hour whose other partials have expired");
        }
        if (eachValid && hourlyDays < ttlDays + 1) {
            r.problems.add("HOURLY_TTL_DAYS (" + hourlyDays + ") must be >= PARTIAL_TTL_DAYS + 1 (" + (ttlDays + 1)
                    + "): a day is rebuilt from its hourly rollups for as long as its last hour takes late data, a day"
                    + " after its first hour");
        }
        if (eachValid && dailyDays < hourlyDays) {
            r.problems.add("DAILY_TTL_DAYS (" + dailyDays + ") must be >= HOURLY_TTL_DAYS (" + hourlyDays
                    + "): past the minute detail, ranges are answered from the daily rollups");
        }
        if (!r.problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", r.problems));
        }
        return new PulseConfig(
                table,
                dlq,
                Duration.ofDays(ttlDays),
                (int) concurrency,
                base,
                cap,
                margin,
                Duration.ofSeconds(past),
                Duration.ofSeconds(future),
                Duration.ofDays(hourlyDays),
                Duration.ofDays(dailyDays),
                Duration.ofSeconds(recordAge),
                Duration.ofSeconds(ingestTimeout),
                Duration.ofSeconds(grace));
    }

    /**
     * The longest time between a compaction mark's timestamp and the last partial write it announces becoming
     * visible, doubled: two ingest invocations may stamp marks in one order and land them in the other
     * (docs/design.md, "Compaction marks"). The compactor leaves a mark alone until it is at least this old.
     */
    public Duration markSettle() {
        return ingestTimeout.plusSeconds(5).multipliedBy(2);
    }

    /**
     * How long after its arrival a record may still be redriven: what {@code PARTIAL_TTL_DAYS} leaves after the late
     * window ({@code ACCEPT_PAST_SECONDS}), an hour, the grace, the mark settle time and a day of builder lag. A record
     * that arrived longer ago may hold datapoints of an hour whose partials expire before the builder can rebuild
     * it, so its redrive is refused (dev.pulse.store.schema.RedriveWindow). The retention rule makes it longer than
     * {@code STREAM_RETENTION_HOURS}: a record the stream still holds is always inside it.
     */
    public Duration redriveWindow() {
        return partialTtl
                .minus(acceptPast)
                .minusHours(1)
                .minus(compactGrace)
                .minus(markSettle())
                .minus(BUILD_LAG_ALLOWANCE);
    }

    private static final class Reader {
        final Map<String, String> env;
        final List<String> problems = new ArrayList<>();

        Reader(Map<String, String> env) {
            this.env = env;
        }

        String required(String name) {
            String v = env.get(name);
            if (v == null || v.isBlank()) {
                problems.add(name + " is required");
                return null;
            }
            return v.strip();
        }

        long number(String name, long dflt, long min, long max) {
            String v = env.get(name);
            if (v == null || v.isBlank()) {
                return dflt;
            }
            try {
                long n = Long.parseLong(v.strip());
                if (n < min || n > max) {
                    problems.add(name + " must be between " + min + " and " + max + ", got " + n);
                }
                return n;
            } catch (NumberFormatException e) {
                problems.add(name + " must be an integer, got '" + v + "'");
                return dflt;
            }
        }
    }
}
