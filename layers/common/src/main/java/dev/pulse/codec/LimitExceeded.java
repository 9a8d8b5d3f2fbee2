package dev.pulse.codec;

/**
 * A decode limit ({@link DecodeLimits}) was passed deep inside a decoder, where the checked {@link DecodeException}
 * cannot be thrown (a list's {@code add}). {@link RecordDecoder} turns it into poison: of the unit, or of the whole
 * KPL aggregate when {@link #wholeAggregate} (a limit on the aggregate's user records together).
 */
final class LimitExceeded extends RuntimeException {

    final boolean wholeAggregate;

    LimitExceeded(String reason, boolean wholeAggregate) {
        super(reason, null, false, false);
        this.wholeAggregate = wholeAggregate;
    }
}
