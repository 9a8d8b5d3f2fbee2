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

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import dev.pulse.query.QueryHandler;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import dev.pulse.testing.RawData;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Canaries written through the real ingest path and read back through the query handler: the verdict
 * catches an injected loss, an injected duplicate, and both at once (same count, wrong sum).
 */
@ExtendWith(Emulators.class)
class CanaryVerificationIT {

    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private long sequence;

    private CanaryVerifier.Verdict run(String runId, int drop, int duplicate) throws Exception {
        try (Pipeline p = new Pipeline("pulse-canary", NOW, Duration.ofDays(14))) {
            List<Long> sendTimes = new ArrayList<>();
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                long sent = NOW.toEpochMilli() - 120_000 + k * 1000L;
                sendTimes.add(sent);
                ReplayRecord canary = CanaryVerifier.record(runId, k, sent);
                if (k != drop) {
                    records.add(KinesisRecords.record(
                            "shardId-000000000000", sequence++, canary.partitionKey(), canary.data(), sent));
                }
                if (k == duplicate) { // a second copy: a new record, as a producer retry would create
                    records.add(KinesisRecords.record(
                            "shardId-000000000000", sequence++, canary.partitionKey(), canary.data(), sent));
                }
            }
            p.ingest(records);
            QueryHandler handler = p.queryHandler();
            CanaryVerifier.Reader reader = (id, from, to) -> {
                long start = Math.floorDiv(from, 60_000L) * 60_000L;
                JsonNode values = RawData.post(
                                handler,
                                "{\"series\":[{\"name\":\"" + CanaryVerifier.SERIES_NAME
                                        + "\",\"dims\":{\"run\":\"" + id + "\"}}],\"start\":" + start + ",\"end\":" + to
                                        + ",\"period\":60,\"stats\":[\"count\",\"sum\"]}")
                        .at("/series/0/values");
                long count = 0;
                double sum = 0;
                for (int i = 0; i < values.get("count").size(); i++) {
                    if (!values.get("count").get(i).isNull()) {
                        count += values.get("count").get(i).asLong();
                        sum += values.get("sum").get(i).asDouble();
                    }
                }
                return new CanaryVerifier.Observed(count, sum);
            };
            return CanaryVerifier.verify(runId, sendTimes, reader, Deadline.inMillis(1_000), 100);
        }
    }

    @Test
    void verify_whenEveryCanaryArrivedOnce_isOk() throws Exception {
        CanaryVerifier.Verdict v = run("clean", -1, -1);

        assertThat(v.ok()).isTrue();
        assertThat(v.observed()).isEqualTo(20);
    }

    @Test
    void verify_whenOneCanaryLost_reportsTheLoss() throws Exception {
        CanaryVerifier.Verdict v = run("loss", 7, -1);

        assertThat(v.ok()).isFalse();
        assertThat(v.lost()).isEqualTo(1);
        assertThat(v.duplicated()).isZero();
    }

    @Test
    void verify_whenOneCanaryDuplicated_reportsTheDuplicate() throws Exception {
        CanaryVerifier.Verdict v = run("dup", -1, 3);

        assertThat(v.ok()).isFalse();
        assertThat(v.duplicated()).isEqualTo(1);
        assertThat(v.lost()).isZero();
    }

    @Test
    void verify_whenALossHidesBehindADuplicate_stillFailsOnTheSum() throws Exception {
        CanaryVerifier.Verdict v = run("both", 5, 12);

        assertThat(v.observed()).isEqualTo(20);
        assertThat(v.consistent()).isFalse();
        assertThat(v.ok()).isFalse();
    }
}
