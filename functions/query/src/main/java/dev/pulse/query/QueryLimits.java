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

import java.time.Duration;

/** The documented limits of the query API (api/openapi.yaml repeats them). */
public final class QueryLimits {

    public static final int MAX_SERIES = 100;
    public static final int MAX_STATS = 10;
    /** Buckets per series. */
    public static final int MAX_BUCKETS = 10_080;
    /** Points (series x buckets x stats) in one response; more and the response is paginated by series. */
    public static final int MAX_POINTS = 200_000;
    /** Bucket summaries with a sketch held at once (queries with a percentile); beyond it, paginated by series. */
    public static final int MAX_SKETCH_BUCKETS = 20_000;
    /** Items one page may read; beyond it, paginated by series. */
    public static final int MAX_READS = 5_000;

    public static final Duration MAX_RANGE = Duration.ofDays(400);
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private QueryLimits() {}
}
