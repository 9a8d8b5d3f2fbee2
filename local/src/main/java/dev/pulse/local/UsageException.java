package dev.pulse.local;

/** A command line the tool cannot run: reported with the usage text and exit status 2. */
final class UsageException extends Exception {

    UsageException(String message) {
        super(message);
    }
}
