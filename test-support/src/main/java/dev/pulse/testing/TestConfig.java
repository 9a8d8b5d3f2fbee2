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
package dev.pulse.testing;

import dev.pulse.config.PulseConfig;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * The functions' configuration for a test table, read the way the functions read it ({@link
 * PulseConfig#fromEnvironment}), so every retention rule applies: the template's defaults except a short
 * retry backoff, and whatever the test overrides.
 */
public final class TestConfig {

    private TestConfig() {}

    public static PulseConfig of(String table, String deadLetterUrl, Map<String, String> overrides) {
        Map<String, String> env = new HashMap<>();
        env.put("TABLE_NAME", table);
        env.put("DLQ_URL", deadLetterUrl);
        env.put("RETRY_BASE_MS", "5");
        env.put("RETRY_CAP_MS", "100");
        env.putAll(overrides);
        return PulseConfig.fromEnvironment(env);
    }

    /**
     * Settings accepting datapoints up to {@code acceptPast} old, with the shortest partial and hourly retention
     * the rules allow for it (past the late window, the default record age of 24 hours (MAX_RECORD_AGE_SECONDS -1:
     * the stream's retention), an hour, the grace, the settle time and a day of builder lag).
     */
    public static Map<String, String> acceptingPast(Duration acceptPast) {
        long ttlDays =
                acceptPast.plusHours(24 + 1).plusSeconds(300 + 130).plusDays(1).toDays() + 1;
        return Map.of(
                "ACCEPT_PAST_SECONDS",
                Long.toString(acceptPast.toSeconds()),
                "PARTIAL_TTL_DAYS",
                Long.toString(ttlDays),
                "HOURLY_TTL_DAYS",
                Long.toString(Math.max(35, ttlDays + 1)));
    }
}
