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
package dev.pulse.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestPrimingTest {

    private static final PulseConfig CONFIG = PulseConfig.fromEnvironment(Map.of("TABLE_NAME", "t", "DLQ_URL", "q"));

    @Test
    void beforeCheckpoint_whenRun_ingestsEveryRoundInMemoryWithoutCredentials() {
        IngestPriming priming = new IngestPriming(CONFIG);

        priming.beforeCheckpoint(null);

        // No AWS credentials in this JVM: a call through the default provider chain would have failed the priming.
        assertThat(priming.failures()).isZero();
        assertThat(priming.primedPaths()).isEqualTo(1 + 2 + IngestPriming.ROUNDS);
        assertThat(priming.lastRequests())
                .containsKeys("BatchWriteItem", "UpdateItem")
                .doesNotContainKey("SendMessage");
        assertThat(priming.emfBytes()).isPositive();
    }

    @Test
    void event_whenDecoded_hasOneRecordPerInputFormatAboveThePreviousRound() throws Exception {
        var first = IngestPriming.event(0, 1_000L).getRecords();
        var second = IngestPriming.event(1, 1_000L).getRecords();

        assertThat(first).hasSize(7);
        assertThat(new java.math.BigInteger(second.get(0).getKinesis().getSequenceNumber()))
                .isGreaterThan(
                        new java.math.BigInteger(first.get(6).getKinesis().getSequenceNumber()));
    }

    @Test
    void afterRestore_whenRestoredTwice_countsEachRestore() {
        IngestPriming priming = new IngestPriming(CONFIG);

        priming.afterRestore(null);
        priming.afterRestore(null);

        assertThat(priming.restores()).isEqualTo(2);
    }
}
