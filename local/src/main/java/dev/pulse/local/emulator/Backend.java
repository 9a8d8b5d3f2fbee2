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
package dev.pulse.local.emulator;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * What serves the AWS services the pipeline uses (DynamoDB, Kinesis, SQS, S3) for the local
 * stack: the bundled emulators ({@link EmulatorsBackend}) or LocalStack ({@link LocalStackBackend}). The local
 * stack creates the template's resources through these endpoints, the mappings read from them, and the functions
 * reach them through {@link #functionEnvironment()}. Closing stops every process the backend started, by handle.
 */
public interface Backend extends AutoCloseable {

    /** The name {@code --backend} takes. */
    String name();

    URI dynamoDb();

    URI kinesis();

    URI sqs();

    /** SNS (the alert topic): moto and LocalStack's gateway serve it beside SQS. */
    default URI sns() {
        return sqs();
    }

    /** Secrets Manager: moto (the emulators' SQS endpoint) and LocalStack's gateway serve it beside SQS. */
    default URI secretsManager() {
        return sqs();
    }

    /** What a function is told about the endpoints ({@code AWS_ENDPOINT_URL*} and codec settings). */
    Map<String, String> functionEnvironment();

    /** For the start-up summary: one {label, value} pair per line, after which the stack lists its own lines. */
    List<String[]> describe();

    /** Every process the backend started and still runs (for the listening-socket check and the stop check). */
    List<Long> pids();

    /** Restarts the Kinesis service, keeping its records where the backend can (fault injection). */
    default void restartKinesis() throws Exception {
        throw new UnsupportedOperationException("the " + name() + " backend cannot restart Kinesis on its own");
    }
}
