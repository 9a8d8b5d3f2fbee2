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
package dev.pulse.retry;

/**
 * A point in monotonic time by which work must be done, typically the invocation's remaining time minus a
 * safety margin, so retries stop while there is still time to report the failure.
 */
public final class Deadline {

    private final long deadlineNanos;

    private Deadline(long deadlineNanos) {
        this.deadlineNanos = deadlineNanos;
    }

    /** A deadline {@code millis} from now (may be zero or negative: already expired). */
    public static Deadline inMillis(long millis) {
        return new Deadline(System.nanoTime() + millis * 1_000_000L);
    }

    public long remainingMillis() {
        return (deadlineNanos - System.nanoTime()) / 1_000_000L;
    }

    /** The time left as a call timeout: at least 1 ms, since the SDK refuses a zero or negative one. */
    public java.time.Duration callTimeout() {
        return java.time.Duration.ofMillis(Math.max(1, remainingMillis()));
    }

    public boolean expired() {
        return remainingMillis() <= 0;
    }
}
