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

import static dev.pulse.testing.Gzip.gzip;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.pulse.fuzz.Seeds;
import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

/**
 * Fuzzes {@link RecordDecoder#decodeUnits}, the ingest function's only way from a Kinesis record's bytes to
 * datapoints, in every input format. The contract each harness checks for every input:
 * <ul>
 *   <li>the answer is units, each either decoded or poison with a reason, or a {@link DecodeException} with a reason
 *       (the whole record poison); any other exception or Error (an OutOfMemoryError at the Lambda's heap, a
 *       StackOverflowError) is a finding;</li>
 *   <li>a second attempt at the same record gives the same fates (docs/design.md, "Exactly once": a retried batch
 *       accepts and refuses exactly the records the first attempt did);</li>
 *   <li>bounded time: Jazzer's per-input timeout (junit-platform.properties).</li>
 * </ul>
 * The raw harness sees every format; the others wrap the fuzzer's bytes in what a fuzzer rarely gets right by
 * mutation (gzip with its CRC, a KPL aggregate with its MD5, the OTLP exporter's compressions), so coverage reaches
 * the EMF, REPORT-line, OTLP and KPL decoders behind them. Seeds: {@code fuzz/seeds.py} from events/ and the fixtures.
 */
class RecordDecoderFuzzTest {

    /** The fixtures' arrival time (events/ingest-kinesis-*.json): their datapoints fall inside the accepted window. */
    static final long ARRIVAL_MILLIS = 1_795_262_300_000L;

    private static final RecordDecoder DECODER = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(ARRIVAL_MILLIS), ZoneOffset.UTC),
            Duration.ofDays(14),
            Duration.ofHours(2)));

    private static final byte[] KPL_MAGIC = {(byte) 0xF3, (byte) 0x89, (byte) 0x9A, (byte) 0xC2};

    static {
        RecordDecoderFuzzTest t = new RecordDecoderFuzzTest();
        Seeds.warmUp(
                RecordDecoderFuzzTest.class,
                "decodeUnits_whenAnyRecordBytes_answersUnitsOrPoisonAlike",
                t::decodeUnits_whenAnyRecordBytes_answersUnitsOrPoisonAlike);
        Seeds.warmUp(
                RecordDecoderFuzzTest.class,
                "decodeUnits_whenOtlpInAnyCompression_answersUnitsOrPoisonAlike",
                t::decodeUnits_whenOtlpInAnyCompression_answersUnitsOrPoisonAlike);
    }

    @FuzzTest
    void decodeUnits_whenAnyRecordBytes_answersUnitsOrPoisonAlike(byte[] data) {
        checkContract(data);
    }

    /** The bytes are a CloudWatch Logs subscription payload's JSON; gzipped here as the subscription does. */
    @FuzzTest
    void decodeUnits_whenGzippedLogsPayload_answersUnitsOrPoisonAlike(byte[] json) {
        checkContract(gzip(json));
    }

    /**
     * The first byte picks how the OTLP exporter packs the rest (an ExportMetricsServiceRequest as protobuf or JSON):
     * none, gzip, zlib or raw deflate, each either flushed without its trailer (as the exporter writes) or finished.
     */
    @FuzzTest
    void decodeUnits_whenOtlpInAnyCompression_answersUnitsOrPoisonAlike(byte[] input) {
        if (input.length == 0) {
            return;
        }
        byte[] body = Arrays.copyOfRange(input, 1, input.length);
        int pick = input[0] & 0xff;
        boolean finished = (pick & 0x80) != 0;
        byte[] data = switch (pick % 4) {
            case 0 -> body;
            case 1 -> gzip(body);
            case 2 -> deflate(body, false, finished);
            default -> deflate(body, true, finished);
        };
        checkContract(data);
    }

    /** The bytes are a KPL aggregate's protobuf body; the magic and MD5 trailer are added as the KPL does. */
    @FuzzTest
    void decodeUnits_whenKplAggregateBody_answersUnitsOrPoisonAlike(byte[] body) {
        checkContract(kplAggregate(body));
    }

    /** Decodes twice and fails unless both attempts give the same, well-formed fates. */
    static void checkContract(byte[] data) {
        String first = fates(data);
        String second = fates(data);
        if (!first.equals(second)) {
            throw new AssertionError("two attempts at one record disagree:\n" + first + "\n" + second);
        }
    }

    /** The record's fate as text: per unit its datapoints or its poison reason; or the whole record's reason. */
    static String fates(byte[] data) {
        List<RecordDecoder.Unit> units;
        try {
            units = DECODER.decodeUnits(data, "fuzz", ARRIVAL_MILLIS);
        } catch (DecodeException e) {
            requireReason(e.getMessage());
            return "record poison: " + e.getMessage();
        }
        StringBuilder out = new StringBuilder();
        for (RecordDecoder.Unit u : units) {
            if ((u.decoded() == null) == (u.poisonReason() == null)) {
                throw new AssertionError("unit " + u.subSequence() + " must be either decoded or poison, not "
                        + (u.decoded() == null ? "neither" : "both"));
            }
            out.append('#').append(u.subSequence()).append(' ');
            if (u.poisonReason() != null) {
                requireReason(u.poisonReason());
                out.append("poison: ").append(u.poisonReason()).append('\n');
                continue;
            }
            out.append("skipped ").append(u.decoded().skippedEvents()).append('\n');
            for (Datapoint dp : u.decoded().datapoints()) {
                out.append("  ")
                        .append(dp.name())
                        .append(new TreeMap<>(dp.dims()))
                        .append(' ')
                        .append(dp.timestamp())
                        .append(' ')
                        .append(dp.value())
                        .append(' ')
                        .append(dp.unit());
                if (dp.summary() != null) {
                    out.append(" count=")
                            .append(dp.summary().count())
                            .append(" min=")
                            .append(dp.summary().min())
                            .append(" max=")
                            .append(dp.summary().max());
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    private static void requireReason(String reason) {
        if (reason == null || reason.isBlank()) {
            throw new AssertionError("poison without a reason");
        }
    }

    /** zlib ({@code nowrap} false) or raw deflate; unfinished streams end after a sync flush, as the exporter's. */
    static byte[] deflate(byte[] data, boolean raw, boolean finished) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 32);
        Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, raw);
        try (DeflaterOutputStream z = new DeflaterOutputStream(out, deflater, true)) {
            z.write(data);
            if (!finished) {
                z.flush();
                return out.toByteArray();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            deflater.end();
        }
        return out.toByteArray();
    }

    static byte[] kplAggregate(byte[] body) {
        byte[] out = Arrays.copyOf(KPL_MAGIC, KPL_MAGIC.length + body.length + 16);
        System.arraycopy(body, 0, out, KPL_MAGIC.length, body.length);
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(body);
            System.arraycopy(md5, 0, out, KPL_MAGIC.length + body.length, md5.length);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
