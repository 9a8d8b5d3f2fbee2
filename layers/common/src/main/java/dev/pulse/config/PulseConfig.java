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
 * @param partialTtl        {@code PARTIAL_TTL_DAYS} (default 35): retention of minute partials
 * @param writeConcurrency  {@code WRITE_CONCURRENCY} (default 8, 1-64): BatchWriteItem calls in flight
 * @param retryBaseMillis   {@code RETRY_BASE_MS} (default 50): first backoff ceiling
 * @param retryCapMillis    {@code RETRY_CAP_MS} (default 5000): largest backoff ceiling
 * @param safetyMarginMillis {@code SAFETY_MARGIN_MS} (default 3000): time kept back from the invocation's
 *                          remaining time to report a failure
 * @param acceptPast        {@code ACCEPT_PAST_SECONDS} (default 14 days): oldest accepted datapoint
 * @param acceptFuture      {@code ACCEPT_FUTURE_SECONDS} (default 2 hours): newest accepted datapoint
 * @param hourlyTtl         {@code HOURLY_TTL_DAYS} (default 400): retention of hourly rollups
 * @param dailyTtl          {@code DAILY_TTL_DAYS} (default 3650): retention of daily rollups
 */
public record PulseConfig(String tableName, String deadLetterUrl, Duration partialTtl, int writeConcurrency,
        long retryBaseMillis, long retryCapMillis, long safetyMarginMillis, Duration acceptPast, Duration acceptFuture,
        Duration hourlyTtl, Duration dailyTtl) {

    /** Reads and validates; throws {@link ConfigException} listing every problem. */
    public static PulseConfig fromEnvironment(Map<String, String> env) {
        Reader r = new Reader(env);
        String table = r.required("TABLE_NAME");
        String dlq = r.required("DLQ_URL");
        long ttlDays = r.number("PARTIAL_TTL_DAYS", 35, 1, 3650);
        long concurrency = r.number("WRITE_CONCURRENCY", 8, 1, 64);
        long base = r.number("RETRY_BASE_MS", 50, 1, 10_000);
        long cap = r.number("RETRY_CAP_MS", 5_000, 1, 60_000);
        long margin = r.number("SAFETY_MARGIN_MS", 3_000, 0, 600_000);
        long past = r.number("ACCEPT_PAST_SECONDS", Duration.ofDays(14).toSeconds(), 60, Duration.ofDays(3650).toSeconds());
        long future = r.number("ACCEPT_FUTURE_SECONDS", Duration.ofHours(2).toSeconds(), 0, Duration.ofDays(7).toSeconds());
        long hourlyDays = r.number("HOURLY_TTL_DAYS", 400, 1, 3650);
        long dailyDays = r.number("DAILY_TTL_DAYS", 3650, 1, 36500);
        if (cap < base) {
            r.problems.add("RETRY_CAP_MS (" + cap + ") must be >= RETRY_BASE_MS (" + base + ")");
        }
        if (!r.problems.isEmpty()) {
            throw new ConfigException("invalid configuration: " + String.join("; ", r.problems));
        }
        return new PulseConfig(table, dlq, Duration.ofDays(ttlDays), (int) concurrency, base, cap, margin,
                Duration.ofSeconds(past), Duration.ofSeconds(future), Duration.ofDays(hourlyDays), Duration.ofDays(dailyDays));
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
