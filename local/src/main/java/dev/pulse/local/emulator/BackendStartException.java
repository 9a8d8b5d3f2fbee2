package dev.pulse.local.emulator;

/**
 * A backend could not start for a reason the user fixes outside the program (a missing install, a port in use,
 * an unreachable LocalStack): the message is one line saying what is missing and how to get it, and the command
 * exits with status 2 without a stack trace.
 */
public final class BackendStartException extends Exception {

    public BackendStartException(String message) {
        super(message);
    }

    public BackendStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
