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
package dev.pulse.local.lambda;

import java.net.URI;
import java.time.Duration;

/**
 * Faults the local stack injects on purpose, to show the pipeline stays exactly-once when Lambda misbehaves:
 * an environment that dies in the middle of an invocation, an invocation that runs into its timeout, a batch the
 * event source mapping delivers twice, a DynamoDB endpoint that throttles. {@link #NONE} for normal runs.
 */
public interface FaultPlan {

    /** What happens to one invocation. */
    enum Kind {
        NONE,
        CRASH,
        TIMEOUT
    }

    /**
     * One invocation's fault.
     *
     * @param kind  none, the JVM killed ({@code Runtime.ExitError}), or a timeout ({@code Sandbox.Timedout})
     * @param after how long into the invocation it strikes (so some of the function's writes have happened)
     */
    record Fault(Kind kind, Duration after) {
        public static final Fault NONE = new Fault(Kind.NONE, Duration.ZERO);
    }

    /** No faults. */
    FaultPlan NONE = new FaultPlan() {};

    /** Decides the fate of the next invocation of the function {@code logicalId}. */
    default Fault beforeInvoke(String logicalId) {
        return Fault.NONE;
    }

    /** Whether the mapping delivers the batch it just delivered successfully once more. */
    default boolean duplicateDelivery(String functionLogicalId) {
        return false;
    }

    /** The DynamoDB endpoint the functions are given (a fault-injecting proxy in front of {@code real}). */
    default URI dynamoDbEndpoint(URI real) {
        return real;
    }
}
