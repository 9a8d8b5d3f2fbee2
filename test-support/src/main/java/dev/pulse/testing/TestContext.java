package dev.pulse.testing;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;

/** A Lambda context with a real countdown, as the runtime gives one. */
public final class TestContext implements Context {

    private final String requestId;
    private final long deadlineMillis;
    private final int memoryMb;

    public TestContext(String requestId, long timeoutMillis, int memoryMb) {
        this.requestId = requestId;
        this.deadlineMillis = System.currentTimeMillis() + timeoutMillis;
        this.memoryMb = memoryMb;
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/pulse-IngestFunction";
    }

    @Override
    public String getLogStreamName() {
        return "2026/11/21/[$LATEST]test";
    }

    @Override
    public String getFunctionName() {
        return "pulse-IngestFunction";
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:123456789012:function:pulse-IngestFunction";
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
