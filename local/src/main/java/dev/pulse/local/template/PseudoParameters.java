package dev.pulse.local.template;

import java.util.Objects;

/**
 * Values of CloudFormation's pseudo parameters ({@code AWS::Region}, {@code AWS::AccountId}, {@code AWS::StackName},
 * {@code AWS::Partition}, {@code AWS::URLSuffix}).
 */
public record PseudoParameters(String region, String accountId, String stackName, String partition, String urlSuffix) {

    public PseudoParameters {
        Objects.requireNonNull(region, "region");
        Objects.requireNonNull(accountId, "accountId");
        Objects.requireNonNull(stackName, "stackName");
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(urlSuffix, "urlSuffix");
    }

    /** The values the local emulators accept: us-east-1, account 000000000000, partition aws, amazonaws.com. */
    public static PseudoParameters local(String stackName) {
        return new PseudoParameters("us-east-1", "000000000000", stackName, "aws", "amazonaws.com");
    }
}
