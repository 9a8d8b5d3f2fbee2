package dev.pulse.store;

/**
 * A newer attempt has claimed the shard (or written an item) since this attempt started: this attempt is stale
 * and must fail its batch without committing. Its writes cannot have replaced anything the newer attempt wrote
 * (they are conditional on the generation), and the records it covered are stored by the newer attempt.
 */
public final class SupersededException extends RuntimeException {

    public SupersededException(String message) {
        super(message, null, false, false);
    }
}
