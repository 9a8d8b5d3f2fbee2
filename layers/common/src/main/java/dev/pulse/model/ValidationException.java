package dev.pulse.model;

/** A datapoint broke one of the documented limits; the message names the field and the limit. */
public final class ValidationException extends Exception {

    public ValidationException(String message) {
        super(message, null, false, false);
    }
}
