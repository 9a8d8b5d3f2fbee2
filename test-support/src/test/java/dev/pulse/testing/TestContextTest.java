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

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestContextTest {

    @Test
    void getRemainingTimeInMillis_whenTimeRuns_countsDownFromTheTimeout() throws InterruptedException {
        TestContext context = new TestContext("query", "r", 10_000, 1024);
        int first = context.getRemainingTimeInMillis();
        Thread.sleep(30);

        assertThat(first).isBetween(9_000, 10_000);
        assertThat(context.getRemainingTimeInMillis()).isLessThan(first);
    }

    @Test
    void getRemainingTimeInMillis_whenTheTimeoutHasPassed_isZero() {
        assertThat(new TestContext("query", "r", -5_000, 1024).getRemainingTimeInMillis())
                .isZero();
    }

    @Test
    void getRemainingTimeInMillis_whenFixed_staysTheSameWhileTimeRuns() throws InterruptedException {
        TestContext context = TestContext.fixedRemaining("query", "fuzz", 29_000, 1024);
        Thread.sleep(30);

        assertThat(context.getRemainingTimeInMillis()).isEqualTo(29_000);
    }

    @Test
    void getFunctionName_whenNamed_isTheDeployedNameEverywhere() {
        TestContext context = new TestContext("loadgen", "req-1", 1_000, 2048);

        assertThat(context.getFunctionName()).isEqualTo("pulse-loadgen");
        assertThat(context.getLogGroupName()).isEqualTo("/aws/lambda/pulse-loadgen");
        assertThat(context.getInvokedFunctionArn()).endsWith(":function:pulse-loadgen");
        assertThat(context.getAwsRequestId()).isEqualTo("req-1");
        assertThat(context.getMemoryLimitInMB()).isEqualTo(2048);
    }

    @Test
    void getFunctionName_whenNotNamed_isIngestFunction() {
        assertThat(new TestContext("req", 1_000, 1024).getFunctionName()).isEqualTo("pulse-IngestFunction");
    }
}
