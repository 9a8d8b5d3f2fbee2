package dev.pulse.config;

/** The environment is missing a setting or holds an invalid one; the message lists every problem. */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }
}
