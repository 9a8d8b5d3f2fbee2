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
package dev.pulse.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactPrimingTest {

    @Test
    void beforeCheckpoint_whenRun_runsBuildRunsInMemoryWithoutCredentials() {
        CompactPriming priming =
                new CompactPriming(PulseConfig.fromEnvironment(Map.of("TABLE_NAME", "t", "DLQ_URL", "q")));

        priming.beforeCheckpoint(null);

        assertThat(priming.failures()).isZero();
        assertThat(priming.primedPaths()).isEqualTo(1 + 4 + CompactPriming.ROUNDS);
        assertThat(priming.lastRequests()).containsKey("Query");
        assertThat(priming.emfBytes()).isPositive();
    }
}
