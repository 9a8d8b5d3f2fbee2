package dev.pulse.query;

/**
 * A request the API refuses: answered with HTTP 400 and {@code {"error":{"code","message","field"}}}.
 * Never thrown for a server-side problem.
 */
public final class BadRequestException extends Exception {

    private final String code;
    private final String field;

    public BadRequestException(String code, String message, String field) {
        super(message, null, false, false);
        this.code = code;
        this.field = field;
    }

    /** Machine-readable: {@code MalformedJson}, {@code MissingField}, {@code InvalidField}, {@code LimitExceeded}. */
    public String code() {
        return code;
    }

    /** The JSON path of the offending field ({@code series[3].dims}), or {@code null} for the whole body. */
    public String field() {
        return field;
    }
}
