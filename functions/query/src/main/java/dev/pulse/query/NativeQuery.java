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
package dev.pulse.query;

import java.util.List;

/**
 * A validated {@code POST /query}.
 *
 * @param series        the series, at most {@link QueryLimits#MAX_SERIES}
 * @param start         first bucket's start, epoch ms, floored to a whole minute
 * @param end           exclusive end, epoch ms
 * @param periodSeconds bucket width, a multiple of 60
 * @param stats         statistics per bucket, distinct
 * @param offset        index of the first series to serve (from {@code nextToken})
 */
public record NativeQuery(
        List<SeriesSpec> series, long start, long end, long periodSeconds, List<Stat> stats, int offset) {

    public long periodMillis() {
        return periodSeconds * 1000L;
    }

    /** Number of buckets on the shared time axis. */
    public int buckets() {
        return (int) ((end - start + periodMillis() - 1) / periodMillis());
    }
}
