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
package dev.pulse.store.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RedriveWindowTest {

    private static final long NOW = 1_800_000_000_000L;
    private static final RedriveWindow WINDOW = new RedriveWindow(Duration.ofSeconds(168_770));

    private static KinesisEvent.KinesisEventRecord record(String sequence, Long arrival) {
        KinesisEvent.Record k = new KinesisEvent.Record();
        k.setSequenceNumber(sequence);
        k.setData(ByteBuffer.wrap(new byte[0]));
        if (arrival != null) {
            k.setApproximateArrivalTimestamp(new Date(arrival));
        }
        KinesisEvent.KinesisEventRecord r = new KinesisEvent.KinesisEventRecord();
        r.setKinesis(k);
        return r;
    }

    @ParameterizedTest(name = "arrived {0} s ago")
    @CsvSource({"0", "86400", "168769", "168770"})
    void refusal_whenEveryRecordArrivedWithinTheWindow_isNone(long age) {
        assertThat(WINDOW.refusal(List.of(record("1", NOW - age * 1000), record("2", NOW)), NOW))
                .isNull();
    }

    @ParameterizedTest(name = "arrived {0} ms ago")
    @CsvSource({"168770001", "604800000"})
    void refusal_whenARecordArrivedBeforeTheWindow_namesItsAgeAndTheWindow(long ageMillis) {
        String reason = WINDOW.refusal(List.of(record("1", NOW), record("2", NOW - ageMillis)), NOW);

        assertThat(reason)
                .startsWith("redrive refused: record 2 arrived ")
                .contains(ageMillis / 1000 + " s ago, past the redrive window of 168770 s")
                .contains("STREAM_RETENTION_HOURS");
    }

    @Test
    void refusal_whenSeveralRecordsAreTooOld_namesTheOldest() {
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        records.add(record("5", NOW - 200_000_000L));
        records.add(record("6", NOW - 300_000_000L));
        records.add(record("7", NOW - 250_000_000L));

        assertThat(WINDOW.refusal(records, NOW)).startsWith("redrive refused: record 6 ");
    }

    @Test
    void refusal_whenRecordsHaveNoArrivalTime_leavesThemToTheDecoder() {
        // Such a record is poison by its own reason; whether the batch is refused depends on the others.
        assertThat(WINDOW.refusal(List.of(record("1", null)), NOW)).isNull();
        assertThat(WINDOW.refusal(List.of(record("1", null), record("2", NOW - 604_800_000L)), NOW))
                .startsWith("redrive refused: record 2");
    }
}
