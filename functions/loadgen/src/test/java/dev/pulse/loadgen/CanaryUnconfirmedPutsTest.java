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

import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.RecordingKinesis;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A PutRecords call that fails after Kinesis stored its records (a timeout, a reset connection) makes the sender try
 * them again, so a canary can be stored twice by the producer: the sender counts such calls per canary, and the
 * canary check tells those copies from a pipeline's duplicates.
 */
class CanaryUnconfirmedPutsTest {

    /** Stores every record it is given; the calls numbered in {@code failAfterStoring} then fail anyway. */
    @Test
    void run_whenACallCarryingACanaryFailsAfterStoringIt_countsOneUnconfirmedPutForThatCanary() {
        RecordingKinesis client = RecordingKinesis.failingAfterStoring(0);
        List<ReplayRecord> records =
                List.of(new ReplayRecord("{\"name\":\"m\",\"value\":1}".getBytes(StandardCharsets.UTF_8), "pk", 0));

        SendReport r = new KinesisSender(client, "s", new Backoff(1, 10), 3)
                .run(
                        records,
                        Schedule.rate(1, 0),
                        1,
                        0,
                        2,
                        1,
                        Deadline.inMillis(10_000),
                        k -> CanaryVerifier.record("run", k, System.currentTimeMillis()));

        long canariesStored = client.stored().stream()
                .filter(e -> e.partitionKey().startsWith("loadgen-canary-"))
                .count();
        assertThat(r.canaries()).hasSize(2);
        // The first call carried canary 0 (with the first record) and failed after storing it: sent again, stored
        // twice.
        assertThat(canariesStored).isEqualTo(3);
        assertThat(r.canaryUnconfirmedPuts()).containsExactly(1, 0);
    }

    private static CanaryVerifier.Verdict verdict(long count, double sum, List<Integer> unconfirmed) throws Exception {
        List<Long> sendTimes = new ArrayList<>();
        for (int k = 0; k < unconfirmed.size(); k++) {
            sendTimes.add(1_000L * k);
        }
        return CanaryVerifier.verify(
                "run",
                sendTimes,
                unconfirmed,
                List.of(),
                (id, from, to) -> new CanaryVerifier.Observed(count, sum),
                Deadline.inMillis(1_000),
                10);
    }

    @ParameterizedTest(name = "count {0} sum {1} unconfirmed {2}: ok {3}, duplicated {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                // canaries 1..4 (sum 10); no unconfirmed put: exact
                "4 | 10 | 0,0,0,0 | true  | 0",
                "5 | 13 | 0,0,0,0 | false | 1",
                // canary 3's put unconfirmed: one more copy of value 3 is the producer's, not a duplicate
                "5 | 13 | 0,0,1,0 | true  | 0",
                // the copy's value is not an unconfirmed canary's: inconsistent
                "5 | 14 | 0,0,1,0 | false | 0",
                // two copies beyond the one unconfirmed put: one is the pipeline's
                "6 | 16 | 0,0,1,0 | false | 1",
                // every canary seen once although a put was unconfirmed (the failed call had not stored it)
                "4 | 10 | 0,1,0,0 | true  | 0",
            })
    void verify_whenCopiesOfUnconfirmedPuts_countsOnlyTheOthersAsDuplicated(
            long count, double sum, String unconfirmed, boolean ok, long duplicated) throws Exception {
        List<Integer> u = java.util.Arrays.stream(unconfirmed.split(","))
                .map(Integer::valueOf)
                .toList();

        CanaryVerifier.Verdict v = verdict(count, sum, u);

        assertThat(v.ok()).isEqualTo(ok);
        assertThat(v.duplicated()).isEqualTo(duplicated);
        assertThat(v.unconfirmedPuts())
                .isEqualTo(u.stream().mapToLong(Integer::longValue).sum());
    }
}
