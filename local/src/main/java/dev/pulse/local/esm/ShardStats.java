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
package dev.pulse.local.esm;

import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counters of one {@link ShardProcessor}, written by its thread and readable from any other (for logs, a status
 * endpoint, tests). {@code recordsDone} counts every record whose fate is settled: delivered successfully or
 * discarded after a failure; the difference to {@code recordsRead} is in flight.
 */
public final class ShardStats {

    private final AtomicLong recordsRead = new AtomicLong();
    private final AtomicLong invocations = new AtomicLong();
    private final AtomicLong functionErrors = new AtomicLong();
    private final AtomicLong partialFailures = new AtomicLong();
    private final AtomicLong invalidResponses = new AtomicLong();
    private final AtomicLong bisections = new AtomicLong();
    private final AtomicLong retries = new AtomicLong();
    private final AtomicLong batchesToDestination = new AtomicLong();
    private final AtomicLong recordsToDestination = new AtomicLong();
    private final AtomicLong recordsDiscarded = new AtomicLong();
    private final AtomicLong recordsDone = new AtomicLong();
    private final AtomicReference<Instant> newestArrivalDone = new AtomicReference<>();

    /** Records returned by the shard source. */
    public long recordsRead() {
        return recordsRead.get();
    }

    /** Function invocations, retries and bisected halves included. */
    public long invocations() {
        return invocations.get();
    }

    /** Invocations that returned a function error. */
    public long functionErrors() {
        return functionErrors.get();
    }

    /** Invocations whose {@code batchItemFailures} named failed records (ReportBatchItemFailures). */
    public long partialFailures() {
        return partialFailures.get();
    }

    /** Invocations whose response failed the whole batch (bad itemIdentifier, unparseable response). */
    public long invalidResponses() {
        return invalidResponses.get();
    }

    /** Batches split in two after a function error. */
    public long bisections() {
        return bisections.get();
    }

    /** Retries made of a failed batch (or of its unprocessed rest); these count against MaximumRetryAttempts. */
    public long retries() {
        return retries.get();
    }

    /** Failure records sent to the on-failure destination. */
    public long batchesToDestination() {
        return batchesToDestination.get();
    }

    /** Records described by the failure records sent to the destination. */
    public long recordsToDestination() {
        return recordsToDestination.get();
    }

    /** Records given up on (retries or age exhausted), whether or not a destination took their failure record. */
    public long recordsDiscarded() {
        return recordsDiscarded.get();
    }

    /** Records whose processing is over (success, discarded). */
    public long recordsDone() {
        return recordsDone.get();
    }

    /**
     * Approximate arrival of the newest record done, or null before the first; {@code now - this} is the shard's
     * iterator age (lag). It only advances once the records before it are done, so a stuck batch shows as lag.
     */
    public Instant newestArrivalDone() {
        return newestArrivalDone.get();
    }

    void read(int n) {
        recordsRead.addAndGet(n);
    }

    void invoked() {
        invocations.incrementAndGet();
    }

    void functionError() {
        functionErrors.incrementAndGet();
    }

    void partialFailure() {
        partialFailures.incrementAndGet();
    }

    void invalidResponse() {
        invalidResponses.incrementAndGet();
    }

    void bisected() {
        bisections.incrementAndGet();
    }

    void retried() {
        retries.incrementAndGet();
    }

    void discarded(int n) {
        recordsDiscarded.addAndGet(n);
    }

    void toDestination(int n) {
        batchesToDestination.incrementAndGet();
        recordsToDestination.addAndGet(n);
    }

    void done(int n) {
        recordsDone.addAndGet(n);
    }

    void arrivalDone(Instant arrival) {
        if (arrival != null) {
            newestArrivalDone.accumulateAndGet(arrival, (a, b) -> a == null || b.isAfter(a) ? b : a);
        }
    }

    @Override
    public String toString() {
        return "read=" + recordsRead() + " invocations=" + invocations()
                + " functionErrors=" + functionErrors() + " partialFailures=" + partialFailures()
                + " invalidResponses=" + invalidResponses() + " bisections=" + bisections() + " retries=" + retries()
                + " toDestination=" + batchesToDestination() + "/" + recordsToDestination()
                + " discarded=" + recordsDiscarded() + " done=" + recordsDone() + " newestArrivalDone="
                + newestArrivalDone();
    }
}
