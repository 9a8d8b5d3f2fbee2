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

/**
 * The outcome of one compaction run.
 *
 * @param periodsQueued    marked periods found in the compaction queue
 * @param hoursBuilt       hourly rollups written
 * @param daysBuilt        daily rollups written
 * @param periodsPending   marked periods left for a later run
 * @param losingWrites     conditional writes that lost to a newer build or mark
 * @param marksResolved    marks of periods that could no longer be rebuilt, cleared with the rollup kept as it was
 * @param oldestPendingAgeSeconds how long the oldest buildable period still waiting has been buildable (0: none)
 * @param stopped          whether the run stopped with work left (deadline or failure)
 * @param stopReason       why it stopped, or {@code null}
 */
public record CompactResult(
        int periodsQueued,
        int hoursBuilt,
        int daysBuilt,
        int periodsPending,
        int losingWrites,
        int marksResolved,
        long oldestPendingAgeSeconds,
        boolean stopped,
        String stopReason) {}
