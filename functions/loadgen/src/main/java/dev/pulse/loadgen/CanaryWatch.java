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
package dev.pulse.loadgen;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * Reads a run's canary count while the load runs, so that a canary's freshness is the time from its send to the
 * first read that counted it, not the time until a check after the load. One virtual thread polls the reader at a
 * fixed interval from {@link #start} to {@link #stop}; a failed read (the API not answering yet, a throttled call) is
 * skipped, since the next read measures the same thing.
 */
public final class CanaryWatch {

    /** One read: when its answer arrived and the canaries it counted. */
    public record Poll(long atMillis, long count) {}

    static final long STOP_WAIT_MILLIS = 5_000;

    private final List<Poll> polls = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;
    private long failedReads;

    private CanaryWatch(String runId, CanaryVerifier.Reader reader, long pollMillis, LongSupplier clock) {
        long from = clock.getAsLong() - 60_000;
        this.thread = Thread.ofVirtual().name("canary-watch-" + runId).unstarted(() -> {
            while (!stopped) {
                long began = clock.getAsLong();
                try {
                    // The range ends a minute past now so that the canary of the current second is inside it.
                    CanaryVerifier.Observed o = reader.read(runId, from, began + 60_000);
                    synchronized (polls) {
                        if (!stopped) {
                            polls.add(new Poll(clock.getAsLong(), o.count()));
                        }
                    }
                } catch (VirtualMachineError e) {
                    throw e;
                } catch (RuntimeException | Error e) {
                    // Any failure of one read (an assertion in a test reader included) must not end the watch.
                    if (!stopped) { // a read cut by stop() is not a failure of the API
                        synchronized (polls) {
                            failedReads++;
                        }
                    }
                }
                long sleep = pollMillis - (clock.getAsLong() - began);
                if (sleep > 0 && !stopped) {
                    try {
                        Thread.sleep(sleep);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
    }

    /** Starts polling {@code reader} for {@code runId}'s canaries every {@code pollMillis}. */
    public static CanaryWatch start(String runId, CanaryVerifier.Reader reader, long pollMillis, LongSupplier clock) {
        if (pollMillis <= 0) {
            throw new IllegalArgumentException("pollMillis must be positive: " + pollMillis);
        }
        CanaryWatch w = new CanaryWatch(runId, reader, pollMillis, clock);
        w.thread.start();
        return w;
    }

    /**
     * Stops polling, waits up to {@link #STOP_WAIT_MILLIS} for a read in flight, and answers every successful read in
     * time order. A read that ignores the interrupt and does not answer is left behind (its answer is not recorded),
     * so a stuck query API cannot hold the load run.
     */
    public List<Poll> stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join(java.time.Duration.ofMillis(STOP_WAIT_MILLIS));
        synchronized (polls) {
            return List.copyOf(polls);
        }
    }

    /** Reads that failed (skipped) so far. */
    public long failedReads() {
        synchronized (polls) {
            return failedReads;
        }
    }
}
