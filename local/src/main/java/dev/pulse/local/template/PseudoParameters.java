/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
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
