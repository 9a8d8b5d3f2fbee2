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
 * @param init        how its environments initialise: on demand (the default), or as a SnapStart snapshot
 */
public record FunctionConfig(
        String logicalId,
        String name,
        String arn,
        String handler,
        int memoryMb,
        Duration timeout,
        Map<String, String> environment,
        Path taskRoot,
        List<Path> classPath,
        Path javaHome,
        Init init) {

    /**
     * How an environment initialises. The JVM cannot be snapshotted here, so a SnapStart init runs the same JVM on
     * through the snapshot point: the runtime interface client (AWS_LAMBDA_INITIALIZATION_TYPE=snap-start) runs the
     * beforeCheckpoint hooks, asks the Runtime API for {@code /restore/next} (answered at once), runs the
     * afterRestore hooks and then asks for the first invocation.
     */
    public enum Init {
        /** On-demand, as a function without SnapStart (hooks registered, as in the managed runtime, never run). */
        ON_DEMAND,
        /** The snapshot point emulated, hooks registered through org.crac as the managed runtime does. */
        SNAP_START,
        /** The snapshot point emulated without the runtime's CRaC property: org.crac registers nothing, no hook runs. */
        SNAP_START_WITHOUT_HOOKS
    }

    /** On-demand init. */
    public FunctionConfig(
            String logicalId,
            String name,
            String arn,
            String handler,
            int memoryMb,
            Duration timeout,
            Map<String, String> environment,
            Path taskRoot,
            List<Path> classPath,
            Path javaHome) {
        this(
                logicalId,
                name,
                arn,
                handler,
                memoryMb,
                timeout,
                environment,
                taskRoot,
                classPath,
                javaHome,
                Init.ON_DEMAND);
    }

    /** The same function initialising as {@code init}. */
    public FunctionConfig withInit(Init init) {
        return new FunctionConfig(
                logicalId, name, arn, handler, memoryMb, timeout, environment, taskRoot, classPath, javaHome, init);
    }
}
