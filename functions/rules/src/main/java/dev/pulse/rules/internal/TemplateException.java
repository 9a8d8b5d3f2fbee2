package dev.pulse.rules.internal;

/** A template that does not parse, or fails while expanding; the message says where and why. */
public final class TemplateException extends Exception {

    private static final long serialVersionUID = 1L;

    public TemplateException(String message) {
        super(message);
    }
}
