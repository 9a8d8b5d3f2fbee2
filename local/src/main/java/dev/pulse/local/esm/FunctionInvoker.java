package dev.pulse.local.esm;

/** Invokes the mapping's function synchronously, as the event source mapping does (RequestResponse). */
@FunctionalInterface
public interface FunctionInvoker {

    /**
     * Sends {@code payload} (the event JSON) and waits for the outcome.
     *
     * @return the function's response, or its error (an exception it threw, a timeout, a crash)
     */
    InvokeResult invoke(byte[] payload) throws InterruptedException;
}
