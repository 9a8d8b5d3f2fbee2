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
package dev.pulse.ingest;

import dev.pulse.store.write.ShardCheckpoints;

/**
 * How much of its batch an attempt takes on, decided from its shard's checkpoint alone ({@link ShardCheckpoints}):
 * how many attempts since the last commit failed without taking their count back, and how many of them processed
 * the first uncommitted record alone. docs/design.md, "A record that fails every attempt":
 * <ul>
 *   <li>No earlier failure: the whole batch.</li>
 *   <li>After {@code k} failed attempts (a crash, a timeout, a record whose decoding threw, an item DynamoDB
 *       refused), only the first {@code max(1, n >> k)} new records, so a record that kills every attempt is
 *       isolated in a logarithmic number of attempts even without Lambda's bisection (which halves the batch too).
 *       The attempt commits what it processed and asks Lambda to resume after it.</li>
 *   <li>Once that is one record: the record alone. After {@link #ALONE_FAILURES_BEFORE_SET_ASIDE} attempts of it
 *       alone failed, the next attempt sets it aside: the DLQ, with the reason, and the shard moves on. Only the
 *       record alone failing decides it, never a batch it shared: whether a big batch runs out of memory depends on
 *       the batch, and a record's fate may depend only on the record (docs/design.md, "Exactly once").</li>
 * </ul>
 * Failures that say nothing about the records (throttling, 5xx, timeouts of calls, the deadline) take their count
 * back, so they never shrink an attempt nor set a record aside: the shard waits and the iterator-age alarm fires.
 *
 * @param limit      how many of the new records to process (all of them without earlier failures)
 * @param alone      true when this attempt processes the first new record alone after failures
 * @param setAside   true when this attempt sends the first new record to the DLQ instead of storing it
 * @param failed     attempts since the last commit that failed without taking their count back
 * @param reason     the DLQ reason when {@code setAside}
 * @param nameSlots  when {@code setAside}: decode the record to name the partials earlier attempts may have written
 *                   for it, and replace them with empty ones (an attempt of it alone decoded it, so decoding is safe
 *                   and those partials may exist)
 */
record AttemptPlan(int limit, boolean alone, boolean setAside, long failed, String reason, boolean nameSlots) {

    /** Failed attempts of a record alone after which it is set aside. */
    static final int ALONE_FAILURES_BEFORE_SET_ASIDE = 3;

    static final String CRASHED = "the function crashed or timed out";
    /** How the reason of a record whose decoding threw starts ({@code IngestService}). */
    static final String RECORD_FAILED = "record ";

    static AttemptPlan of(ShardCheckpoints.Position p, int newRecords, String firstRecord) {
        return of(p, newRecords, firstRecord, firstRecord.equals(culprit(p)) ? 0 : -1);
    }

    /**
     * The record named by the failure the previous attempt recorded (a record whose decoding threw or ran the
     * attempt out of time), or null.
     */
    static String culprit(ShardCheckpoints.Position p) {
        String f = p.lastFailure();
        if (f == null || p.lastFailureGeneration() != p.generation() - 1 || !f.startsWith(RECORD_FAILED)) {
            return null;
        }
        int end = f.indexOf(' ', RECORD_FAILED.length());
        return end < 0 ? null : f.substring(RECORD_FAILED.length(), end);
    }

    /**
     * @param culpritIndex the index, among the new records, of the record named by the failure the previous attempt
     *                     recorded ({@link #culprit}), or -1: at 0 the attempt takes it alone, further in it stores
     *                     the records before it
     */
    static AttemptPlan of(ShardCheckpoints.Position p, int newRecords, String firstRecord, int culpritIndex) {
        long failed = Math.max(0, p.attempts() - 1);
        if (failed == 0) {
            return new AttemptPlan(newRecords, false, false, 0, null, false);
        }
        // Only counts of this very record decide its fate: after Lambda discarded a batch (finite retries), the next
        // attempt starts at a record the counts were never about.
        boolean same = firstRecord.equals(p.aloneRecord());
        if (same && p.aloneAttempts() >= ALONE_FAILURES_BEFORE_SET_ASIDE) {
            // Decided whatever the batch looks like now: once an attempt may have sent the record to the DLQ, every
            // later one must set it aside too, or it could be stored and in the DLQ.
            String last = p.lastFailure() != null && p.lastFailureGeneration() == p.generation() - 1
                    ? p.lastFailure()
                    : CRASHED + (p.lastFailure() == null ? "" : "; an earlier attempt: " + p.lastFailure());
            String reason =
                    "failed " + failed + " attempts (" + p.aloneAttempts() + " of them with the record alone): " + last;
            return new AttemptPlan(1, true, true, failed, reason, p.decodedAlone());
        }
        // A record that failed while the previous attempt decoded it is the culprit of that failure: straight to it
        // alone, after storing the records before it. Otherwise (a crash, an item refused) halve.
        if (culpritIndex > 0) {
            return new AttemptPlan(culpritIndex, culpritIndex == 1, false, failed, null, false);
        }
        int limit = culpritIndex == 0 || failed >= 31 ? 1 : Math.max(1, newRecords >> failed);
        return new AttemptPlan(limit, limit == 1, false, failed, null, false);
    }
}
