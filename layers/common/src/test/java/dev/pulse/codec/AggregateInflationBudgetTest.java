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
package dev.pulse.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.model.DatapointValidator;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

/**
 * The inflation of a KPL aggregate's user records together is bounded by MAX_DECOMPRESSED_BYTES_PER_AGGREGATE: a
 * user record whose compressed content starts ambiguously ({@code 0a} then {@code [}) is inflated whole by the format
 * detection too, and that inflation counts against the aggregate's budget as well; what the detection inflated is
 * decoded without being inflated (or counted) again.
 */
class AggregateInflationBudgetTest {

    static final long NOW_MS = 1_795_262_400_000L;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    /** zlib of {@code 0a 5b} and then zeros, {@code size} bytes in all: ambiguous, binary, not a protobuf request. */
    static byte[] ambiguousZlib(int size) {
        byte[] plain = new byte[size];
        plain[0] = 0x0a;
        plain[1] = '[';
        Deflater d = new Deflater(Deflater.BEST_COMPRESSION);
        d.setInput(plain);
        d.finish();
        byte[] buf = new byte[size / 500 + 1024];
        int n = d.deflate(buf);
        d.end();
        return java.util.Arrays.copyOf(buf, n);
    }

    @Test
    void decodeUnits_whenUserRecordsInflateAmbiguouslyDuringDetection_wholeAggregatePoisonWithinItsBudget()
            throws Exception {
        byte[] unit = ambiguousZlib(DecodeLimits.MAX_OTLP_PROTOBUF_BYTES - 16);
        List<Map.Entry<String, byte[]>> records = new ArrayList<>();
        for (int i = 0; i < DecodeLimits.MAX_POISON_USER_RECORDS; i++) {
            records.add(Map.entry("pk", unit));
        }
        byte[] aggregate = KplAggregate.write(records);

        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        long before = mx.getThreadAllocatedBytes(tid);
        long t0 = System.nanoTime();
        DecodeException refused = null;
        try {
            DECODER.decodeUnits(aggregate, "pk", NOW_MS);
        } catch (DecodeException e) {
            refused = e;
        }
        long millis = (System.nanoTime() - t0) / 1_000_000;
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        System.out.printf(
                "aggregate %d bytes (%d user records of %d bytes): %d ms, %d MB allocated%n",
                aggregate.length, records.size(), unit.length, millis, allocated >> 20);

        // Four user records of 4 MB use up the 16 MB: the fifth's detection passes it, and the whole record is poison.
        assertThat(refused).isNotNull();
        assertThat(refused.getMessage())
                .contains("user record #4: KPL aggregate: its user records decompress to more than "
                        + DecodeLimits.MAX_DECOMPRESSED_BYTES_PER_AGGREGATE
                        + " bytes together (MAX_DECOMPRESSED_BYTES_PER_AGGREGATE)");
        // Four times the aggregate's inflation budget leaves room for the buffers' growth and copies.
        assertThat(allocated).isLessThan(4L * DecodeLimits.MAX_DECOMPRESSED_BYTES_PER_AGGREGATE);
    }

    /** zlib of OTLP/JSON after a newline (ambiguous: {@code 0a} then {@code {}), {@code size} bytes inflated, no points. */
    static byte[] ambiguousOtlpJson(int size) {
        return HostileRecords.zlibOf(a -> {
            a.text("\n{\"resourceMetrics\":[");
            a.text(" ".repeat(size - 23));
            a.text("]}");
        });
    }

    @Test
    void decodeUnits_whenDetectionInflatedAmbiguousJsonWhole_chargesItOnce() throws Exception {
        // 3.9 MB each, 15.6 MB together: under the aggregate's 16 MB only if each is counted once.
        byte[] user = ambiguousOtlpJson(3_900_000);
        byte[] aggregate = KplAggregate.write(
                List.of(Map.entry("a", user), Map.entry("b", user), Map.entry("c", user), Map.entry("d", user)));

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(aggregate, "pk", NOW_MS);

        assertThat(units).hasSize(4).allSatisfy(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.decoded().datapoints()).isEmpty();
        });
    }

    @Test
    void decodeUnits_whenAmbiguousUserRecordPassesTheAggregatesBudgetInDetection_wholeAggregatePoison() {
        byte[] user = ambiguousOtlpJson(3_900_000);
        byte[] aggregate = KplAggregate.write(List.of(
                Map.entry("a", user),
                Map.entry("b", user),
                Map.entry("c", user),
                Map.entry("d", user),
                Map.entry("e", user)));

        assertThatThrownBy(() -> DECODER.decodeUnits(aggregate, "pk", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("user record #4: KPL aggregate")
                .hasMessageContaining("MAX_DECOMPRESSED_BYTES_PER_AGGREGATE");
    }

    @Test
    void decodeUnits_whenPlainRecordInflatesAmbiguouslyPastProtobufLimit_judgedByItsFirstBytes() throws Exception {
        // A plain record has no aggregate to charge: 5 MB of ambiguous OTLP/JSON is still read as OTLP/JSON.
        byte[] record = ambiguousOtlpJson(5_000_000);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units)
                .singleElement()
                .satisfies(u -> assertThat(u.poisonReason()).isNull());
    }
}
