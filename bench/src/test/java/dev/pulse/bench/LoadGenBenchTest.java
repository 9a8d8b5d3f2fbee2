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

import org.junit.jupiter.api.Test;

class LoadGenBenchTest {

    private static final long[] STEADY = {20_000, 19_950, 20_040, 20_010, 19_990};

    @Test
    void judge_whenEveryConditionHolds_isSustained() {
        LoadGenBench.Verdict v = LoadGenBench.judge(20_000, 19_998, STEADY, 100_000, 100_000, 0, 100_000, 40);

        assertThat(v.sustained()).isTrue();
        assertThat(v.reasons()).isEmpty();
    }

    @Test
    void judge_whenAchievedMoreThanTwoPercentBelow_isNotSustained() {
        LoadGenBench.Verdict v = LoadGenBench.judge(20_000, 19_590, STEADY, 100_000, 100_000, 0, 100_000, 40);

        assertThat(v.sustained()).isFalse();
        assertThat(v.reasons()).singleElement().asString().contains("below the target");
    }

    @Test
    void judge_whenExactlyTwoPercentOff_isSustained() {
        assertThat(LoadGenBench.judge(20_000, 19_600, STEADY, 1, 1, 0, 1, 40).sustained())
                .isTrue();
    }

    @Test
    void judge_whenAStallIsMadeUpByABurst_isNotSustained() {
        long[] bursty = {20_000, 15_000, 25_000, 20_000, 20_000};

        LoadGenBench.Verdict v = LoadGenBench.judge(20_000, 20_000, bursty, 100_000, 100_000, 0, 100_000, 40);

        assertThat(v.sustained()).isFalse();
        assertThat(v.reasons()).singleElement().asString().contains("second 2 after the ramp");
    }

    @Test
    void judge_whenAcknowledgementsLag_isNotSustained() {
        LoadGenBench.Verdict v = LoadGenBench.judge(20_000, 20_000, STEADY, 100_000, 99_000, 0, 99_000, 1_000);

        assertThat(v.sustained()).isFalse();
        assertThat(v.reasons())
                .hasSize(2)
                .anySatisfy(r -> assertThat(r).contains("acked 99,000 of 100,000"))
                .anySatisfy(r -> assertThat(r).contains("p99 latency 1,000 ms"));
    }

    @Test
    void judge_whenRecordsFailed_isNotSustained() {
        assertThat(LoadGenBench.judge(20_000, 20_000, STEADY, 100_000, 99_990, 10, 99_990, 40)
                        .reasons())
                .anySatisfy(r -> assertThat(r).isEqualTo("10 records failed"));
    }

    @Test
    void judge_whenTheSinkCountDiffersFromAcked_isNotSustained() {
        LoadGenBench.Verdict v = LoadGenBench.judge(20_000, 20_000, STEADY, 100_000, 100_000, 0, 100_500, 40);

        assertThat(v.sustained()).isFalse();
        assertThat(v.reasons()).singleElement().asString().contains("the sink received 100,500");
    }

    @Test
    void judge_whenNoWholeSecondAfterTheRamp_isNotSustained() {
        assertThat(LoadGenBench.judge(20_000, 0, new long[0], 0, 0, 0, 0, 0).sustained())
                .isFalse();
    }

    @Test
    void between_whenBracketed_returnsTheGeometricMeanToTheThousand() {
        assertThat(LoadGenBench.between(160_000, 320_000)).isEqualTo(226_000);
        assertThat(LoadGenBench.between(20_000, 40_000)).isEqualTo(28_000);
    }
}
