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
package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;

/**
 * The Lambda context for an in-process invocation. By default the remaining time counts down from the timeout, as
 * the runtime's does, so a handler's deadline logic sees the clock run; {@link #fixedRemaining} stands still for
 * callers whose answers must not depend on how long they ran (fuzzing).
 */
public final class TestContext implements Context {

    private final String function;
    private final String requestId;
    private final long deadlineMillis;
    private final int fixedRemainingMillis;
    private final int memoryMb;

    /** IngestFunction's context ({@code pulse-IngestFunction}) with {@code timeoutMillis} left. */
    public TestContext(String requestId, long timeoutMillis, int memoryMb) {
        this("IngestFunction", requestId, timeoutMillis, memoryMb);
    }

    /** The context of the function {@code pulse-<function>} with {@code timeoutMillis} left. */
    public TestContext(String function, String requestId, long timeoutMillis, int memoryMb) {
        this(function, requestId, System.currentTimeMillis() + timeoutMillis, -1, memoryMb);
    }

    private TestContext(
            String function, String requestId, long deadlineMillis, int fixedRemainingMillis, int memoryMb) {
        this.function = "pulse-" + function;
        this.requestId = requestId;
        this.deadlineMillis = deadlineMillis;
        this.fixedRemainingMillis = fixedRemainingMillis;
        this.memoryMb = memoryMb;
    }

    /** A context whose remaining time is always {@code remainingMillis}, whenever it is asked. */
    public static TestContext fixedRemaining(String function, String requestId, int remainingMillis, int memoryMb) {
        return new TestContext(function, requestId, 0, remainingMillis, memoryMb);
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/" + function;
    }

    @Override
    public String getLogStreamName() {
        return "2026/11/21/[$LATEST]test";
    }

    @Override
    public String getFunctionName() {
        return function;
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:123456789012:function:" + function;
    }

    @Override
    public CognitoIdentity getIdentity() {
        return null;
    }

    @Override
    public ClientContext getClientContext() {
        return null;
    }

    @Override
    public int getRemainingTimeInMillis() {
        if (fixedRemainingMillis >= 0) {
            return fixedRemainingMillis;
        }
        return (int) Math.max(0, deadlineMillis - System.currentTimeMillis());
    }

    @Override
    public int getMemoryLimitInMB() {
        return memoryMb;
    }

    @Override
    public LambdaLogger getLogger() {
        return new LambdaLogger() {
            @Override
            public void log(String message) {
                System.out.print(message);
            }

            @Override
            public void log(byte[] message) {
                System.out.print(new String(message, StandardCharsets.UTF_8));
            }
        };
    }
}
