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
package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.withinPercentage;

import dev.pulse.local.emulator.KinesisEmulator;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequest;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;

/**
 * The sender against a Kinesis emulator on 127.0.0.1: the offered rate follows the schedule (ramp and
 * plateau), and a target that stalls delays acknowledgements, not sends.
 */
class LoadGenKinesisIT {

    private static KinesisEmulator kinesis;

    @BeforeAll
    static void start() throws Exception {
        kinesis = KinesisEmulator.start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (kinesis != null) {
            kinesis.close();
        }
    }

    private static List<ReplayRecord> sample() {
        List<ReplayRecord> records = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            String json = "{\"name\":\"checkout.latency\",\"dims\":{\"op\":\"op" + (i % 7)
                    + "\"},\"ts\":1795262400000,\"value\":" + (i % 97) + "}";
            records.add(new ReplayRecord(json.getBytes(StandardCharsets.UTF_8), "op" + (i % 7), 0));
        }
        return records;
    }

    @Test
    void run_whenFixedRateFor30Seconds_every5SecondWindowAfterRampIsWithin2PercentAndRampIsLinear() throws Exception {
        kinesis.createStream("rate", 4);
        double rate = 1000;
        double ramp = 10;
        // 30 s: the ramp and four 5-second windows at full rate, each held to 2% (a schedule that drifts or bunches
        // misses within the first windows), and the whole post-ramp rate to 2%.
        int seconds = 30;
        try (KinesisAsyncClient client = kinesis.client()) {
            SendReport r = new KinesisSender(client, "rate", new Backoff(20, 500), 5)
                    .run(
                            sample(),
                            Schedule.rate(rate, ramp),
                            rate,
                            ramp,
                            seconds,
                            Long.MAX_VALUE,
                            Deadline.inMillis(60_000),
                            null);

            assertThat(r.failed()).isZero();
            assertThat(r.acked()).isEqualTo(r.sent());
            long[] perSecond = r.sentPerSecond();
            for (int w = (int) ramp; w + 5 <= seconds; w += 5) {
                long inWindow = 0;
                for (int s = w; s < w + 5; s++) {
                    inWindow += perSecond[s];
                }
                assertThat((double) inWindow)
                        .as("records sent in [%d s, %d s)", w, w + 5)
                        .isCloseTo(5 * rate, withinPercentage(2));
            }
            long cumulative = 0;
            for (int s = 0; s < ramp; s++) {
                cumulative += perSecond[s];
                double expected = rate * (s + 1) * (s + 1) / (2 * ramp);
                if (s >= 1) {
                    assertThat((double) cumulative)
                            .as("records sent by %d s of the ramp", s + 1)
                            .isCloseTo(expected, withinPercentage(5));
                }
            }
            assertThat(r.achievedRate()).isCloseTo(rate, withinPercentage(2));
        }
    }

    @Test
    void run_whenTargetStallsForTwoSeconds_offeredRateStaysOnScheduleAndStallShowsInLatency() throws Exception {
        kinesis.createStream("stall", 2);
        double rate = 500;
        try (KinesisAsyncClient real = kinesis.client()) {
            long started = System.nanoTime();
            // Every answer to a call made between 8 s and 10 s is held back until 10 s: the stream "stalls".
            KinesisAsyncClient stalling = new StallingKinesis(real, started, 8_000, 10_000);
            SendReport r = new KinesisSender(stalling, "stall", new Backoff(20, 500), 5)
                    .run(
                            sample(),
                            Schedule.rate(rate, 2),
                            rate,
                            2,
                            16,
                            Long.MAX_VALUE,
                            Deadline.inMillis(60_000),
                            null);

            long[] perSecond = r.sentPerSecond();
            for (int s = 8; s < 10; s++) {
                assertThat((double) perSecond[s])
                        .as("sent during stalled second %d", s)
                        .isCloseTo(rate, withinPercentage(2));
            }
            assertThat(r.acked()).isEqualTo(r.sent());
            // About 1/8 of the post-ramp records waited up to 2 s: p99 and max show it, p50 does not.
            assertThat(r.latency().maxMillis()).isGreaterThan(1_800);
            assertThat(r.latency().percentileMillis(99)).isGreaterThan(1_000);
            assertThat(r.latency().percentileMillis(50)).isLessThan(500);
        }
    }

    /** Fault injection around the real client: holds back the answers of calls made inside a window. */
    private static final class StallingKinesis implements KinesisAsyncClient {
        private final KinesisAsyncClient delegate;
        private final long startNanos;
        private final long fromMillis;
        private final long toMillis;

        StallingKinesis(KinesisAsyncClient delegate, long startNanos, long fromMillis, long toMillis) {
            this.delegate = delegate;
            this.startNanos = startNanos;
            this.fromMillis = fromMillis;
            this.toMillis = toMillis;
        }

        @Override
        public CompletableFuture<PutRecordsResponse> putRecords(Consumer<PutRecordsRequest.Builder> request) {
            long at = (System.nanoTime() - startNanos) / 1_000_000;
            CompletableFuture<PutRecordsResponse> call = delegate.putRecords(request);
            if (at < fromMillis || at >= toMillis) {
                return call;
            }
            return call.thenCompose(resp -> CompletableFuture.supplyAsync(
                    () -> resp, CompletableFuture.delayedExecutor(toMillis - at, TimeUnit.MILLISECONDS)));
        }

        @Override
        public String serviceName() {
            return delegate.serviceName();
        }

        @Override
        public void close() {}
    }
}
