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

import dev.pulse.model.DatapointValidator;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * EMF directives whose metrics name empty value arrays make no datapoint, so the datapoint budget never stops them:
 * each such metric (per dimension set) is counted as a datapoint would be, up to MAX_EMF_EMPTY_METRICS_PER_RECORD, so
 * the work of a record stays near that of decoding its JSON once.
 */
class EmfEmptyValueArraysTest {

    static final long NOW_MS = Payloads.NOW_MS;
    static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    /**
     * {@code events} EMF events, each of {@code directives} directives of {@code sets} empty dimension sets and 100
     * metrics; the JSON has about the same size whatever {@code sets} is.
     */
    static byte[] emptyValueDirectives(int events, int directives, int sets) {
        StringBuilder directive = new StringBuilder("{\\\"Namespace\\\":\\\"n\\\",\\\"Dimensions\\\":[");
        for (int s = 0; s < sets; s++) {
            directive.append(s == 0 ? "" : ",").append("[]");
        }
        // Padding to the same length in a member no one reads, so only the number of sets differs.
        directive.append("],\\\"x\\\":[");
        for (int s = sets; s < DecodeLimits.MAX_EMF_DIMENSION_SETS; s++) {
            directive.append(s == sets ? "" : ",").append("[]");
        }
        directive.append("],\\\"Metrics\\\":[");
        for (int m = 0; m < DecodeLimits.MAX_EMF_METRICS_PER_DIRECTIVE; m++) {
            directive.append(m == 0 ? "" : ",").append("{\\\"Name\\\":\\\"m\\\"}");
        }
        directive.append("]}");
        String d = directive.toString();
        return HostileRecords.gzipOf(a -> {
            a.text("{\"messageType\":\"DATA_MESSAGE\",\"logGroup\":\"" + HostileRecords.LAMBDA_GROUP
                    + "\",\"logStream\":\"s\",\"logEvents\":[");
            for (int e = 0; e < events; e++) {
                a.text((e == 0 ? "" : ",") + "{\"id\":\"" + e + "\",\"timestamp\":" + NOW_MS + ",\"message\":\"");
                a.text("{\\\"_aws\\\":{\\\"Timestamp\\\":" + NOW_MS + ",\\\"CloudWatchMetrics\\\":[");
                for (int i = 0; i < directives; i++) {
                    a.text((i == 0 ? "" : ",") + d);
                }
                a.text("]},\\\"m\\\":[]}\"}");
            }
            a.text("]}");
        });
    }

    @Test
    void decodeUnits_whenDirectivesNameOnlyEmptyValueArrays_poisonWithinTheTimeOfItsJson() throws Exception {
        // Each directive is ~1.9 KB escaped (~1.3 KB of message): 12 messages of 600 are ~14 MB inflated.
        byte[] record = emptyValueDirectives(12, 600, DecodeLimits.MAX_EMF_DIMENSION_SETS);
        assertThat(record.length).isLessThan(1_048_576);

        long t0 = System.nanoTime();
        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);
        long millis = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf(
                "record %d bytes: %d ms, units %s%n",
                record.length,
                millis,
                units.get(0).poisonReason() != null
                        ? units.get(0).poisonReason()
                        : units.get(0).decoded().datapoints().size() + " datapoints");

        // The same JSON with one dimension set per directive: the time of reading it, with 30 times fewer metric
        // visits.
        byte[] baseline = emptyValueDirectives(12, 600, 1);
        long t1 = System.nanoTime();
        DECODER.decodeUnits(baseline, "pk", NOW_MS);
        long baselineMillis = (System.nanoTime() - t1) / 1_000_000;
        System.out.printf(
                "same JSON, one dimension set per directive (%d bytes): %d ms%n", baseline.length, baselineMillis);

        assertThat(millis).isLessThan(4 * Math.max(baselineMillis, 250));
        assertThat(units)
                .singleElement()
                .extracting(RecordDecoder.Unit::poisonReason)
                .asString()
                .contains("logEvents[0]", "MAX_EMF_EMPTY_METRICS_PER_RECORD");
    }

    @Test
    void decodeUnits_whenEmptyValueArraysAtTheLimit_decodesToNoDatapoints() throws Exception {
        // Two events of 500 directives of 100 metrics and one (empty) dimension set: 100,000 empty metrics.
        byte[] record = emptyValueDirectives(2, 500, 1);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units).singleElement().satisfies(u -> {
            assertThat(u.poisonReason()).isNull();
            assertThat(u.decoded().datapoints()).isEmpty();
        });
    }

    @Test
    void decodeUnits_whenEmptyValueArraysPastTheLimit_poisonNamingTheLimit() throws Exception {
        byte[] record = emptyValueDirectives(2, 501, 1);

        List<RecordDecoder.Unit> units = DECODER.decodeUnits(record, "pk", NOW_MS);

        assertThat(units)
                .singleElement()
                .extracting(RecordDecoder.Unit::poisonReason)
                .asString()
                .contains(
                        "more than " + DecodeLimits.MAX_EMF_EMPTY_METRICS_PER_RECORD
                                + " EMF metrics with an empty value array",
                        "MAX_EMF_EMPTY_METRICS_PER_RECORD");
    }

    @Test
    void decodeUnits_whenAggregateUserRecordsTogetherPassTheLimit_wholeAggregatePoison() {
        // 60,000 empty metrics each: under the per-record limit alone, over it together.
        byte[] user = emptyValueDirectives(1, 600, 1);
        byte[] aggregate = KplAggregate.write(List.of(java.util.Map.entry("a", user), java.util.Map.entry("b", user)));

        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DECODER.decodeUnits(aggregate, "pk", NOW_MS))
                .isInstanceOf(DecodeException.class)
                .hasMessageContaining("user record #1: KPL aggregate")
                .hasMessageContaining("MAX_EMF_EMPTY_METRICS_PER_AGGREGATE");
    }
}
