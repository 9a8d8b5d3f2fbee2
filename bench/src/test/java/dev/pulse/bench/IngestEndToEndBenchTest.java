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
package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.model.Datapoint;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestEndToEndBenchTest {

    @Test
    void rawItem_whenTwoDatapointsOfOneRecordShareTimestamp_keysDifferByPosition() {
        Datapoint p = new Datapoint("api.latency", Map.of("service", "cart"), 1_795_000_000_000L, 12.5, "Milliseconds");

        var first = IngestEndToEndBench.rawItem(p, "4959", 0);
        var second = IngestEndToEndBench.rawItem(p, "4959", 1);

        assertThat(first.get("pk").s()).isEqualTo("R#" + p.seriesKey() + "#2026-11-18T11:06");
        assertThat(first.get("pk")).isEqualTo(second.get("pk"));
        assertThat(first.get("sk")).isNotEqualTo(second.get("sk"));
        assertThat(first.get("value").n()).isEqualTo("12.5");
        assertThat(first.get("unit").s()).isEqualTo("Milliseconds");
    }
}
