package dev.pulse.local.esm;

/** The mapping's on-failure destination (an SQS queue): receives the failure context of a discarded batch. */
@FunctionalInterface
public interface FailureDestination {

    void send(String failureContextJson) throws Exception;
}
