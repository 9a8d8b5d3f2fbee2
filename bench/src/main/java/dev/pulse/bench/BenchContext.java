package dev.pulse.bench;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import java.nio.charset.StandardCharsets;

/** A Lambda context whose remaining time counts down from the function's timeout, as the runtime's does. */
final class BenchContext implements Context {

    private final String requestId;
    private final String functionName;
    private final long deadlineMillis;
    private final int memoryMb;

    BenchContext(String requestId, String functionName, long timeoutMillis, int memoryMb) {
        this.requestId = requestId;
        this.functionName = functionName;
        this.deadlineMillis = System.currentTimeMillis() + timeoutMillis;
        this.memoryMb = memoryMb;
    }

    @Override
    public String getAwsRequestId() {
        return requestId;
    }

    @Override
    public String getLogGroupName() {
        return "/aws/lambda/" + functionName;
    }

    @Override
    public String getLogStreamName() {
        return "bench/[$LATEST]" + requestId;
    }

    @Override
    public String getFunctionName() {
        return functionName;
    }

    @Override
    public String getFunctionVersion() {
        return "$LATEST";
    }

    @Override
    public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:123456789012:function:" + functionName;
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
