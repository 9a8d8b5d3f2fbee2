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
package dev.pulse.rules.internal;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Prometheus' duration strings (common/model.ParseDuration): {@code 1y2w3d4h5m6s7ms}, units largest first, or 0. */
public final class Durations {

    private static final Pattern DURATION =
            Pattern.compile("^(?:(\\d+)y)?(?:(\\d+)w)?(?:(\\d+)d)?(?:(\\d+)h)?(?:(\\d+)m)?(?:(\\d+)s)?(?:(\\d+)ms)?$");
    private static final long[] UNIT_MILLIS = {
        365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000, 1
    };
    /** Go's time.Duration holds at most about 292 years. */
    private static final long MAX_MILLIS = Long.MAX_VALUE / 1_000_000;

    private Durations() {}

    /** Milliseconds; throws with Prometheus' message for anything else. */
    public static long parse(String s) throws IllegalArgumentException {
        if ("0".equals(s)) {
            return 0;
        }
        Matcher m = s.length() <= 64 ? DURATION.matcher(s) : null;
        if (s.isEmpty() || m == null || !m.matches()) {
            throw new IllegalArgumentException("not a valid duration string: \"" + abbreviate(s) + "\"");
        }
        long total = 0;
        for (int i = 0; i < UNIT_MILLIS.length; i++) {
            String g = m.group(i + 1);
            if (g == null) {
                continue;
            }
            // Checked before multiplying: 12 digits of years overflow a long and could wrap to a small or
            // negative duration.
            if (g.length() > 12 || Long.parseLong(g) > (MAX_MILLIS - total) / UNIT_MILLIS[i]) {
                throw new IllegalArgumentException("duration out of range: \"" + abbreviate(s) + "\"");
            }
            total += Long.parseLong(g) * UNIT_MILLIS[i];
            if (total > MAX_MILLIS) {
                throw new IllegalArgumentException("duration out of range: \"" + abbreviate(s) + "\"");
            }
        }
        return total;
    }

    /** As Prometheus prints a duration: {@code 1h30m}, {@code 0s}. */
    public static String format(long millis) {
        if (millis == 0) {
            return "0s";
        }
        StringBuilder b = new StringBuilder();
        String[] units = {"y", "w", "d", "h", "m", "s", "ms"};
        long left = millis;
        for (int i = 0; i < UNIT_MILLIS.length; i++) {
            long n = left / UNIT_MILLIS[i];
            if (n > 0) {
                b.append(n).append(units[i]);
                left -= n * UNIT_MILLIS[i];
            }
        }
        return b.toString();
    }

    static String abbreviate(String s) {
        return s.length() <= 64 ? s : s.substring(0, 64) + "...";
    }
}
