package dev.pulse.local.lambda;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How to start one function's execution environments: everything is read from template.yaml and the build
 * output by the caller.
 *
 * @param logicalId   the template's logical id (for log prefixes)
 * @param name        the function name ({@code AWS_LAMBDA_FUNCTION_NAME})
 * @param arn         its ARN, as the runtime reports it in the context
 * @param handler     {@code Handler} ({@code package.Class::method})
 * @param memoryMb    {@code MemorySize}: the JVM sees this much RAM, so the template's heap settings mean what
 *                    they mean in Lambda
 * @param timeout     {@code Timeout}: an invocation that runs longer is stopped and its environment discarded
 * @param environment the function's variables (template) plus the runtime's reserved ones (endpoints,
 *                    credentials, region)
 * @param taskRoot    the function's artifact ({@code LAMBDA_TASK_ROOT}: its classes and {@code lib/*.jar})
 * @param classPath   the layers' {@code java/lib} jars and the runtime interface client (what the managed
 *                    runtime provides)
 * @param javaHome    the JDK that runs the function
 */
public record FunctionConfig(String logicalId, String name, String arn, String handler, int memoryMb, Duration timeout,
        Map<String, String> environment, Path taskRoot, List<Path> classPath, Path javaHome) {
}
