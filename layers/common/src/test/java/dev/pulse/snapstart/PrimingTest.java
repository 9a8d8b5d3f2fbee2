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
package dev.pulse.snapstart;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * The hooks as Lambda runs them: surefire starts this module's JVM with -Dorg.crac.Core.Compat set to the runtime
 * interface client's CRaC package, as the managed java21 runtime does, and the tests trigger the checkpoint and the
 * restore through that client's global context.
 */
class PrimingTest {

    static final class Counting extends Priming {
        final AtomicInteger primed = new AtomicInteger();
        final AtomicInteger refreshed = new AtomicInteger();
        boolean fail;

        Counting() {
            super("test");
        }

        @Override
        protected int prime() {
            if (fail) {
                throw new IllegalStateException("boom");
            }
            primed.incrementAndGet();
            return 1 + primeCodecs();
        }

        @Override
        protected void refresh() {
            refreshed.incrementAndGet();
        }
    }

    @Test
    void register_whenTheRuntimeCheckpointsAndRestores_runsBothHooksInOrder() throws Exception {
        loadRuntimeClientJni();
        Counting priming = Priming.register(new Counting());

        com.amazonaws.services.lambda.crac.Core.getGlobalContext().beforeCheckpoint(null);
        assertThat(priming.primed).hasValue(1);
        assertThat(priming.refreshed).hasValue(0);
        com.amazonaws.services.lambda.crac.Core.getGlobalContext().afterRestore(null);

        assertThat(priming.primedPaths()).isEqualTo(1 + 1 + 2); // its own path, the codecs, the CRT client
        assertThat(priming.refreshed).hasValue(1);
        assertThat(priming.restores()).isEqualTo(1);
        assertThat(priming.failures()).isZero();
    }

    /** The runtime client's JNI library: its context clears the JVM's DNS cache natively after the hooks. */
    private static void loadRuntimeClientJni() throws java.io.IOException {
        String arch = System.getProperty("os.arch").equals("aarch64") ? "aarch_64" : "x86_64";
        java.nio.file.Path lib = java.nio.file.Files.createTempFile("pulse-test-lambda-jni", ".so");
        lib.toFile().deleteOnExit();
        try (var in = com.amazonaws.services.lambda.crac.Core.class.getResourceAsStream(
                "/jni/libaws-lambda-jni.linux-" + arch + ".so")) {
            java.nio.file.Files.copy(in, lib, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        System.load(lib.toString());
    }

    @Test
    void beforeCheckpoint_whenPrimingFails_countsItAndLetsTheSnapshotGoOn() {
        Counting priming = new Counting();
        priming.fail = true;

        priming.beforeCheckpoint(null);

        assertThat(priming.failures()).isEqualTo(1);
        assertThat(priming.primedPaths()).isZero();
    }

    @Test
    void afterRestore_whenRestored_reseedsTheJitter() {
        long before = dev.pulse.retry.JitterAccess.seeder();

        new Counting().afterRestore(null);

        assertThat(dev.pulse.retry.JitterAccess.seeder()).isNotEqualTo(before);
    }

    @Test
    void dynamoDb_whenCalled_answersInMemoryWithoutCredentialsOrNetwork() throws Exception {
        try (PrimingClients clients = new PrimingClients()) {
            clients.dynamoDb()
                    .putItem(b -> b.tableName("t").item(java.util.Map.of("pk", AttributeValue.fromS("p"))))
                    .get();
            clients.dynamoDb()
                    .batchWriteItem(b -> b.requestItems(java.util.Map.of()))
                    .get();

            assertThat(clients.requests()).containsEntry("PutItem", 1L).containsEntry("BatchWriteItem", 1L);
        }
    }

    @Test
    void throwawayMetrics_whenFlushed_serialisesTheEmfDocumentAndPrintsNothing() {
        AtomicLong bytes = new AtomicLong();
        var metrics = ThrowawayMetrics.create("test", bytes);
        metrics.addMetric("Primed", 1, MetricUnit.COUNT);

        metrics.flush();

        assertThat(bytes.get()).isPositive();
    }
}
