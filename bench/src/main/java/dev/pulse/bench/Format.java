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
package dev.pulse.bench;

import java.util.Locale;

/** Number formats of the printed lines: grouped integers, ratios with their precision. */
public final class Format {

    private Format() {}

    /** {@code 1234567.8 -> "1,234,568"}. */
    public static String count(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    /** {@code 34.123 -> "34.1x"}: how many times the baseline. */
    public static String times(double v) {
        return String.format(Locale.ROOT, v >= 100 ? "%,.0fx" : "%.1fx", v);
    }

    /** {@code 1.0041 -> "1.004"}: a ratio near one, where the third decimal matters. */
    public static String ratio(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** Milliseconds with one decimal. */
    public static String millis(double v) {
        return String.format(Locale.ROOT, "%.1f ms", v);
    }

    /** Bytes as MB of 2^20 bytes, as the JVM and Lambda's memory setting count them. */
    public static String mib(double bytes) {
        return String.format(Locale.ROOT, "%.0f MB", bytes / (1024.0 * 1024.0));
    }
}
