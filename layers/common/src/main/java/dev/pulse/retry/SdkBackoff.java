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

import java.time.Duration;
import software.amazon.awssdk.retries.api.BackoffStrategy;

/**
 * The SDK's exponential backoff with full jitter, drawn from {@link Jitter} instead of the SDK's own
 * {@code ThreadLocalRandom}: under SnapStart every environment restored from one snapshot shares that generator's
 * seeder, so their SDK retries of a throttled table would fire in lockstep; {@link Jitter} is reseeded after a
 * restore. Delay before retry {@code attempt} (1 = the first): uniform in {@code [0, min(cap, base x 2^(attempt-1))]}.
 */
public final class SdkBackoff implements BackoffStrategy {

    private final long baseMillis;
    private final long capMillis;

    private SdkBackoff(long baseMillis, long capMillis) {
        if (baseMillis <= 0 || capMillis < baseMillis) {
            throw new IllegalArgumentException("base must be positive and at most the cap");
        }
        this.baseMillis = baseMillis;
        this.capMillis = capMillis;
    }

    /** Full jitter over {@code base x 2^(attempt-1)}, at most {@code cap}. */
    public static SdkBackoff create(Duration base, Duration cap) {
        return new SdkBackoff(base.toMillis(), cap.toMillis());
    }

    @Override
    public Duration computeDelay(int attempt) {
        int shift = Math.min(Math.max(attempt, 1) - 1, 30);
        long ceiling = Math.min(capMillis, baseMillis << shift);
        return Duration.ofMillis(Jitter.nextLong(ceiling + 1));
    }
}
