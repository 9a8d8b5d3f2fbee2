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
package dev.pulse.compact;

import dev.pulse.metrics.MetricName;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/** The metrics CompactFunction (the compactor) emits, once per run, as one EMF document (names in PascalCase). */
public enum CompactMetric implements MetricName {
    /** Marked periods the run found in the compaction queue. */
    PERIODS_QUEUED,
    HOURS_BUILT,
    DAYS_BUILT,
    /** Marked periods left for a later run: marked too recently, a day whose hours are not all built, or the deadline. */
    PERIODS_PENDING,
    ITEMS_READ,
    ROLLUPS_WRITTEN,
    /** Conditional rollup writes that lost to a newer build or a newer mark (dropped, never applied). */
    LOSING_WRITES,
    /**
     * Marks resolved without a rebuild: an hour whose partials, or a day whose hourly rollups, may have expired keeps
     * its rollup as it was, without the late data that marked it (docs/operations.md).
     */
    EXPIRED_MARKS,
    /** The oldest buildable closed period still waiting after the run, in seconds since it became buildable. */
    OLDEST_PENDING_BUILD_AGE_SECONDS {
        @Override
        public MetricUnit unit() {
            return MetricUnit.SECONDS;
        }
    },
    /** Runs that stopped at their deadline (or on a read failure) with work left. */
    RUNS_STOPPED,
    COLD_START
}
