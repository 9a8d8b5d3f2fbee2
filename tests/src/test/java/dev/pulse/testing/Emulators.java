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

import dev.pulse.local.emulator.MotoSqs;
import dev.pulse.testing.emulator.LocalDynamoDb;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.services.dynamodb.DynamoDbAsyncClient;

/**
 * Starts DynamoDB Local and moto once for the whole test run, on 127.0.0.1, and stops both when the run
 * ends (JUnit closes the resource kept in its root store). Use with {@code @ExtendWith(Emulators.class)};
 * engines without Jupiter extensions (jqwik) call {@link #ensureStarted()}.
 */
public final class Emulators implements BeforeAllCallback {

    private static volatile Running running;

    @Override
    public void beforeAll(ExtensionContext context) {
        running = context.getRoot()
                .getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Running.class, k -> Running.start(), Running.class);
    }

    /**
     * For engines that do not run Jupiter extensions (jqwik): reuses the running emulators, or starts them and
     * stops them when the JVM exits (the engines of a run execute one after the other, so Jupiter's may have
     * closed its own already).
     */
    public static synchronized void ensureStarted() {
        Running r = running;
        if (r == null || r.closed) {
            Running started = Running.start();
            running = started;
            Runtime.getRuntime()
                    .addShutdownHook(new Thread(
                            () -> {
                                try {
                                    started.close();
                                } catch (Exception ignored) {
                                    // the JVM is exiting
                                }
                            },
                            "emulators-shutdown"));
        }
    }

    public static LocalDynamoDb dynamo() {
        return running.dynamo;
    }

    public static MotoSqs sqs() {
        return running.sqs;
    }

    /** One async client on DynamoDB Local for the whole run (each client has its own connection pool and threads). */
    public static DynamoDbAsyncClient dynamoAsync() {
        return running.async;
    }

    /** Both emulators; closed by JUnit at the end of the run. */
    static final class Running implements AutoCloseable {
        final LocalDynamoDb dynamo;
        final MotoSqs sqs;
        final DynamoDbAsyncClient async;
        volatile boolean closed;

        private Running(LocalDynamoDb dynamo, MotoSqs sqs) {
            this.dynamo = dynamo;
            this.sqs = sqs;
            this.async = dynamo.asyncClient();
        }

        static Running start() {
            LocalDynamoDb dynamo = null;
            try {
                dynamo = LocalDynamoDb.start();
                return new Running(dynamo, MotoSqs.start());
            } catch (Exception e) {
                if (dynamo != null) {
                    try {
                        dynamo.close();
                    } catch (Exception suppressed) {
                        e.addSuppressed(suppressed);
                    }
                }
                throw new IllegalStateException("could not start the emulators", e);
            }
        }

        @Override
        public void close() throws Exception {
            if (closed) {
                return;
            }
            closed = true;
            try {
                async.close();
                sqs.close();
            } finally {
                dynamo.close();
            }
        }
    }
}
