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

import java.util.List;
import org.junit.jupiter.api.Test;

class JvmOptionsBenchTest {

    private static final List<String> C1_TEMPLATE = List.of(
            "-XX:+TieredCompilation",
            "-XX:TieredStopAtLevel=1",
            "-XX:MaxRAMPercentage=75",
            "-XX:+UseSerialGC",
            "-Djava.net.preferIPv4Stack=true");
    private static final List<String> FULL_TEMPLATE = List.of(
            "-XX:+TieredCompilation", "-XX:MaxRAMPercentage=75", "-XX:+UseSerialGC", "-Djava.net.preferIPv4Stack=true");

    @Test
    void options_whenTemplateIsC1Only_fullDropsOnlyTheStopFlag() {
        assertThat(JvmOptionsBench.options(C1_TEMPLATE, JvmOptionsBench.Variant.FULL))
                .isEqualTo(FULL_TEMPLATE);
        assertThat(JvmOptionsBench.options(C1_TEMPLATE, JvmOptionsBench.Variant.C1))
                .isEqualTo(C1_TEMPLATE);
    }

    @Test
    void options_whenTemplateIsFullTiered_c1AddsTheStopFlagAtTheEnd() {
        assertThat(JvmOptionsBench.options(FULL_TEMPLATE, JvmOptionsBench.Variant.FULL))
                .isEqualTo(FULL_TEMPLATE);
        assertThat(JvmOptionsBench.options(FULL_TEMPLATE, JvmOptionsBench.Variant.C1))
                .containsExactly(
                        "-XX:+TieredCompilation",
                        "-XX:MaxRAMPercentage=75",
                        "-XX:+UseSerialGC",
                        "-Djava.net.preferIPv4Stack=true",
                        "-XX:TieredStopAtLevel=1");
    }

    @Test
    void options_whenAnotherLevelOrRepeats_keepsOneC1FlagInPlaceOfTheFirst() {
        assertThat(JvmOptionsBench.options(
                        List.of("-XX:TieredStopAtLevel=3", "-Xss1m", "-XX:TieredStopAtLevel=2"),
                        JvmOptionsBench.Variant.C1))
                .containsExactly("-XX:TieredStopAtLevel=1", "-Xss1m");
    }

    @Test
    void variantOf_whenTheLastStopFlagIsLevel1_isC1Only() {
        assertThat(JvmOptionsBench.variantOf(C1_TEMPLATE)).isEqualTo(JvmOptionsBench.Variant.C1);
        assertThat(JvmOptionsBench.variantOf(FULL_TEMPLATE)).isEqualTo(JvmOptionsBench.Variant.FULL);
        assertThat(JvmOptionsBench.variantOf(List.of("-XX:TieredStopAtLevel=1", "-XX:TieredStopAtLevel=4")))
                .isEqualTo(JvmOptionsBench.Variant.FULL);
    }
}
