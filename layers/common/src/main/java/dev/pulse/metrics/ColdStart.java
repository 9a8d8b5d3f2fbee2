package dev.pulse.metrics;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * True exactly once: held by a handler instance, of which the Lambda runtime makes one per execution
 * environment, it marks the environment's first invocation.
 */
public final class ColdStart {

    private final AtomicBoolean first = new AtomicBoolean(true);

    /** Whether this is the first call; every later call returns false. */
    public boolean take() {
        return first.getAndSet(false);
    }
}
