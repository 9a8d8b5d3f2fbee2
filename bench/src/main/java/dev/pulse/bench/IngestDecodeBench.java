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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.bench.internal.JfrProfile;
import dev.pulse.codec.DecodeException;
import dev.pulse.codec.Decoded;
import dev.pulse.codec.KplAggregate;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.model.DatapointValidator;
import dev.pulse.testing.KinesisRecords;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * ingest-decode: the CPU side of ingestion on one thread. Kinesis record data is decoded (native NDJSON; gzip
 * CloudWatch Logs payloads with EMF documents and REPORT lines), every datapoint validated, and the batch
 * aggregated into minute partials with sketches and exact sums, exactly as {@code IngestService} does before it
 * writes. The baseline is the floor of any JSON decoder: Jackson's streaming tokenizer reading the same bytes
 * (and gunzipping them) without building anything.
 */
final class IngestDecodeBench implements Benchmark {

    static final double TARGET_DATAPOINTS_PER_SECOND = 300_000;
    private static final long START = Instant.parse("2026-11-21T12:00:00Z").toEpochMilli();
    private static final long ARRIVAL = START + 300_000;
    /** The template's default BatchSize: one aggregator per batch, as one invocation has. */
    private static final int BATCH = 500;

    private static final JsonFactory TOKENS = new JsonFactory();

    private final RecordDecoder decoder = new RecordDecoder(new DatapointValidator(
            Clock.fixed(Instant.ofEpochMilli(ARRIVAL), ZoneOffset.UTC), Duration.ofDays(14), Duration.ofHours(2)));

    @Override
    public String name() {
        return "ingest-decode";
    }

    @Override
    public String howToRead() {
        return """
                Datapoints per second on one thread through `RecordDecoder` (decode + validate) and `BatchAggregator` \
                (minute partials with DDSketch and exact sum), in batches of 500 records as one invocation gets them. \
                NDJSON: 50 datapoints a record over 200 series; CloudWatch Logs: gzip subscription payloads of 25 log \
                events (5 invocations: START, an application line, an EMF document with 4 values, END, REPORT with 3). \
                The baseline is Jackson's streaming tokenizer reading the same bytes without building anything (for \
                CloudWatch Logs: gunzip, the envelope and each EMF message): the floor of any JSON decoder, so the \
                ratio is the share of that floor the full path keeps (1.0 would mean validation and aggregation were \
                free). Median of rounds of at least one second, product and baseline alternating; [min .. max] is \
                the spread. KPL: the NDJSON records packed ten to a KPL aggregate (`RecordDecoder.decodeUnits`, each \
                user record decoded on its own), against de-aggregation alone (MD5 and protobuf, nothing decoded). \
                OTLP: otlp_proto records (the exporter's default, uncompressed) of 50 data points, half \
                gauges and half delta histograms of 20 values in 10 buckets (a histogram is one pre-aggregated \
                datapoint); its floor is protobuf's parser alone (ExportMetricsServiceRequest.parseFrom). Target: \
                >= 300,000 datapoints/s for NDJSON.""";
    }

    @Override
    public Result run(BenchEnv env) throws Exception {
        List<byte[]> ndjson = Datasets.ndjson(2_000, 50, START, 240_000, 7);
        List<byte[]> logs = Datasets.cloudWatchLogs(1_000, 25, START, 240_000, 11);
        List<byte[]> kpl = aggregates(ndjson, 10);
        List<byte[]> otlp = Datasets.otlp(1_000, 50, START, 240_000, 13);
        int rounds = env.scale(6, 2);
        long roundNanos = env.quick() ? 200_000_000L : 1_000_000_000L;

        Map<String, double[]> rates = new LinkedHashMap<>();
        String[] series = {
            "ndjson", "ndjson-baseline", "logs", "logs-baseline", "kpl", "kpl-baseline", "otlp", "otlp-baseline"
        };
        for (String s : series) {
            rates.put(s, new double[rounds]);
        }
        // Warm-up: every path compiled before the first measured round.
        for (int w = 0; w < env.scale(3, 1); w++) {
            measure(() -> decodeAll(ndjson), roundNanos);
            measure(() -> tokenizeAll(ndjson, false), roundNanos);
            measure(() -> decodeAll(logs), roundNanos);
            measure(() -> tokenizeAll(logs, true), roundNanos);
            measure(() -> decodeAllUnits(kpl), roundNanos);
            measure(() -> deaggregateAll(kpl), roundNanos);
            measure(() -> decodeAll(otlp), roundNanos);
            measure(() -> parseAllOtlp(otlp), roundNanos);
        }
        long ndjsonPoints = decodeAll(ndjson);
        long logsPoints = decodeAll(logs);
        long kplPoints = decodeAllUnits(kpl);
        long otlpPoints = decodeAll(otlp);
        for (int r = 0; r < rounds; r++) {
            rates.get("ndjson")[r] = measure(() -> decodeAll(ndjson), roundNanos);
            rates.get("ndjson-baseline")[r] =
                    measure(() -> tokenizeAll(ndjson, false) == 0 ? 0 : ndjsonPoints, roundNanos);
            rates.get("logs")[r] = measure(() -> decodeAll(logs), roundNanos);
            rates.get("logs-baseline")[r] = measure(() -> tokenizeAll(logs, true) == 0 ? 0 : logsPoints, roundNanos);
            rates.get("kpl")[r] = measure(() -> decodeAllUnits(kpl), roundNanos);
            rates.get("kpl-baseline")[r] = measure(() -> deaggregateAll(kpl) == 0 ? 0 : kplPoints, roundNanos);
            rates.get("otlp")[r] = measure(() -> decodeAll(otlp), roundNanos);
            rates.get("otlp-baseline")[r] = measure(() -> parseAllOtlp(otlp) == 0 ? 0 : otlpPoints, roundNanos);
        }
        Samples nd = Samples.of(rates.get("ndjson"));
        Samples ndBase = Samples.of(rates.get("ndjson-baseline"));
        Samples lg = Samples.of(rates.get("logs"));
        Samples lgBase = Samples.of(rates.get("logs-baseline"));
        Samples kp = Samples.of(rates.get("kpl"));
        Samples kpBase = Samples.of(rates.get("kpl-baseline"));
        Samples ot = Samples.of(rates.get("otlp"));
        Samples otBase = Samples.of(rates.get("otlp-baseline"));
        boolean met = nd.median() >= TARGET_DATAPOINTS_PER_SECOND;

        List<String> details = new ArrayList<>();
        details.add("NDJSON:          " + nd.spread("%,.0f") + " rounds, datapoints/s (" + ndjsonPoints
                + " datapoints a pass)");
        details.add("  tokenizer only: " + ndBase.spread("%,.0f"));
        details.add("CloudWatch Logs: " + lg.spread("%,.0f") + " rounds, datapoints/s (" + logsPoints
                + " datapoints a pass)");
        details.add("  tokenizer only: " + lgBase.spread("%,.0f"));
        details.add("KPL aggregates:  " + kp.spread("%,.0f") + " rounds, datapoints/s (" + kplPoints
                + " datapoints a pass, 10 user records an aggregate)");
        details.add("  de-aggregation only: " + kpBase.spread("%,.0f"));
        details.add("OTLP protobuf:   " + ot.spread("%,.0f") + " rounds, datapoints/s (" + otlpPoints
                + " datapoints a pass)");
        details.add("  parser only:    " + otBase.spread("%,.0f"));
        if (!met) {
            details.addAll(JfrProfile.profile(
                    "NDJSON decode + aggregate",
                    () -> measure(() -> decodeAll(ndjson), env.quick() ? 500_000_000L : 5_000_000_000L),
                    null));
        }
        Map<String, Double> values = new LinkedHashMap<>();
        values.put("ndjsonDatapointsPerSecond", nd.median());
        values.put("ndjsonTokenizerDatapointsPerSecond", ndBase.median());
        values.put("logsDatapointsPerSecond", lg.median());
        values.put("logsTokenizerDatapointsPerSecond", lgBase.median());
        values.put("kplDatapointsPerSecond", kp.median());
        values.put("kplDeaggregateOnlyDatapointsPerSecond", kpBase.median());
        values.put("otlpDatapointsPerSecond", ot.median());
        values.put("otlpParserDatapointsPerSecond", otBase.median());
        return new Result(
                name(),
                "NDJSON " + Format.count(nd.median()) + " datapoints/s, CloudWatch Logs " + Format.count(lg.median())
                        + " datapoints/s, KPL " + Format.count(kp.median()) + " datapoints/s, OTLP protobuf "
                        + Format.count(ot.median()) + " datapoints/s (parser alone " + Format.count(otBase.median())
                        + "), one thread",
                "tokenizer only " + Format.count(ndBase.median()) + " and " + Format.count(lgBase.median())
                        + " datapoints/s",
                "ratio " + Format.ratio(nd.median() / ndBase.median()) + " and "
                        + Format.ratio(lg.median() / lgBase.median()),
                ">= 300,000 datapoints/s NDJSON",
                met,
                details,
                values);
    }

    /** A pass over a dataset, returning the datapoints it accounts for. */
    interface Pass {
        long run() throws Exception;
    }

    /** Runs passes for at least {@code nanos}; datapoints per second. */
    static double measure(Pass pass, long nanos) throws Exception {
        long points = 0;
        long start = System.nanoTime();
        long elapsed;
        do {
            points += pass.run();
            elapsed = System.nanoTime() - start;
        } while (elapsed < nanos);
        return points / (elapsed / 1e9);
    }

    /** Decode, validate and aggregate every record, one aggregator per batch; the datapoints aggregated. */
    long decodeAll(List<byte[]> records) throws DecodeException {
        long points = 0;
        long partials = 0;
        for (int b = 0; b < records.size(); b += BATCH) {
            BatchAggregator agg = new BatchAggregator("shardId-000000000000");
            for (int i = b; i < Math.min(records.size(), b + BATCH); i++) {
                Decoded d = decoder.decode(records.get(i), ARRIVAL);
                agg.addRecord(KinesisRecords.sequence(i), d.datapoints());
            }
            points += agg.datapoints();
            partials += agg.partials().size();
        }
        if (partials == 0) {
            throw new IllegalStateException("nothing aggregated");
        }
        return points;
    }

    /** {@code records} packed {@code per} to a KPL aggregate, in order. */
    static List<byte[]> aggregates(List<byte[]> records, int per) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < records.size(); i += per) {
            List<Map.Entry<String, byte[]>> users = new ArrayList<>();
            for (int j = i; j < Math.min(records.size(), i + per); j++) {
                users.add(Map.entry("pk-" + (j % 16), records.get(j)));
            }
            out.add(KplAggregate.write(users));
        }
        return out;
    }

    /** As {@link #decodeAll}, through the per-user-record path IngestService takes. */
    long decodeAllUnits(List<byte[]> records) throws DecodeException {
        long points = 0;
        for (int b = 0; b < records.size(); b += BATCH) {
            BatchAggregator agg = new BatchAggregator("shardId-000000000000");
            for (int i = b; i < Math.min(records.size(), b + BATCH); i++) {
                for (RecordDecoder.Unit u : decoder.decodeUnits(records.get(i), "pk", ARRIVAL)) {
                    if (u.decoded() == null) {
                        throw new IllegalStateException(u.poisonReason());
                    }
                    agg.addRecord(
                            KinesisRecords.sequence(i) + "." + u.subSequence(),
                            u.decoded().datapoints());
                }
            }
            points += agg.datapoints();
        }
        return points;
    }

    /** The OTLP floor: protobuf's parser alone over every record; the data points parsed. */
    static long parseAllOtlp(List<byte[]> records) throws IOException {
        long points = 0;
        for (byte[] data : records) {
            var request = io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest.parseFrom(data);
            points += request.getResourceMetrics(0).getScopeMetrics(0).getMetricsCount();
        }
        return points;
    }

    /** The KPL baseline: de-aggregation alone; the user records read. */
    static long deaggregateAll(List<byte[]> records) throws DecodeException {
        long users = 0;
        for (byte[] r : records) {
            users += KplAggregate.read(r).size();
        }
        return users;
    }

    /** The baseline: every token of every record (and of each EMF message inside a log payload); the tokens read. */
    static long tokenizeAll(List<byte[]> records, boolean gzip) throws IOException {
        long tokens = 0;
        for (byte[] data : records) {
            InputStream in =
                    gzip ? new GZIPInputStream(new ByteArrayInputStream(data), 8192) : new ByteArrayInputStream(data);
            try (JsonParser p = TOKENS.createParser(in)) {
                boolean message = false;
                for (JsonToken t; (t = p.nextToken()) != null; ) {
                    tokens++;
                    if (t == JsonToken.FIELD_NAME) {
                        message = gzip && "message".equals(p.currentName());
                    } else if (message && t == JsonToken.VALUE_STRING) {
                        String text = p.getText();
                        if (text.startsWith("{")) {
                            try (JsonParser inner = TOKENS.createParser(text)) {
                                while (inner.nextToken() != null) {
                                    tokens++;
                                }
                            }
                        }
                        message = false;
                    }
                }
            }
        }
        return tokens;
    }
}
