package dev.pulse.store.write;

import dev.pulse.store.read.LatestPartials;

/**
 * A newer attempt has claimed the shard since this attempt started: this attempt is stale and must fail its batch
 * without committing. Its partials carry an older generation, so readers prefer the newer attempt's wherever both
 * wrote the same slot ({@link LatestPartials}), and the records it covered are stored by the newer attempt.
 */
public final class SupersededException extends RuntimeException {

    public SupersededException(String message) {
        super(message, null, false, false);
    }
}
