package dev.pulse.local.esm;

/**
 * The outcome of one invocation as the Lambda service reports it.
 *
 * @param payload       the response body (the function's return value as JSON; for an error, Lambda's error JSON)
 * @param functionError null on success; {@code Unhandled} when the function threw, timed out or crashed
 * @param requestId     the invocation's request id
 */
public record InvokeResult(byte[] payload, String functionError, String requestId) {

    public boolean failed() {
        return functionError != null;
    }
}
