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

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.loadgen.ReplayRecord;
import dev.pulse.loadgen.ReplaySource;
import dev.pulse.model.SeriesKey;
import dev.pulse.testing.Gzip;
import dev.pulse.testing.KinesisRecords;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;

/**
 * The traffic the cost benchmark replays: Kinesis records with their arrival time on the simulated timeline, and
 * the event source mapping's batching of them per shard.
 */
final class CostTraffic {

    private static final ObjectMapper JSON = new ObjectMapper();
    static final long MINUTE = 60_000L;
    static final long HOUR = 3_600_000L;
    static final long DAY = 86_400_000L;

    private CostTraffic() {}

    /** One Kinesis record: when it arrives, its partition key, its data. */
    record Rec(long arrival, String partitionKey, byte[] data) {}

    /** Records of a workload by arrival time. */
    interface Traffic {
        String name();

        /** The records arriving in [{@code from}, {@code to}), by arrival time. */
        List<Rec> arrivals(long from, long to);
    }

    // --- (a) The bundled recording, retimed ------------------------------------------------------------------

    /**
     * events/replay/sample.ndjson.gz (a day of recorded traffic from midnight: native datapoints, one a record, and
     * CloudWatch Logs subscription payloads with EMF documents and REPORT lines) replayed on the simulated timeline:
     * a record recorded at offset {@code o} into its day arrives at {@code o} into every simulated day, and every
     * time it carries (a native datapoint's {@code ts}; a log event's {@code timestamp} and an EMF document's
     * {@code _aws.Timestamp}) is moved by the same amount.
     */
    static final class Recording implements Traffic {
        private final List<ReplayRecord> records;
        private final long[] offsets;
        private final long recordedDay;
        private final long until;

        /** Replays {@code file} on the simulated timeline up to {@code until} (exclusive). */
        Recording(Path file, long until) throws IOException {
            this.until = until;
            try (InputStream in = Files.newInputStream(file)) {
                List<ReplayRecord> all =
                        new ArrayList<>(ReplaySource.read(in, file.toString().endsWith(".gz")));
                all.sort(Comparator.comparingLong(ReplayRecord::recordedMillis));
                this.records = all;
            }
            this.recordedDay = Math.floorDiv(records.get(0).recordedMillis(), DAY) * DAY;
            this.offsets = new long[records.size()];
            for (int i = 0; i < offsets.length; i++) {
                offsets[i] = Math.floorMod(records.get(i).recordedMillis() - recordedDay, DAY);
            }
        }

        @Override
        public String name() {
            return "recording";
        }

        int size() {
            return records.size();
        }

        @Override
        public List<Rec> arrivals(long from, long to) {
            List<Rec> out = new ArrayList<>();
            to = Math.min(to, until);
            for (long day = Math.floorDiv(from, DAY) * DAY; day < to; day += DAY) {
                long lo = Math.max(from, day) - day;
                long hi = Math.min(to, day + DAY) - day;
                int i = lowerBound(offsets, lo);
                for (; i < offsets.length && offsets[i] < hi; i++) {
                    ReplayRecord r = records.get(i);
                    long shift = day + offsets[i] - r.recordedMillis();
                    out.add(new Rec(r.recordedMillis() + shift, r.partitionKey(), retime(r.data(), shift)));
                }
            }
            out.sort(Comparator.comparingLong(Rec::arrival));
            return out;
        }

        private static int lowerBound(long[] a, long v) {
            int lo = 0;
            int hi = a.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (a[mid] < v) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo;
        }

        /** The record's data with every time it carries moved by {@code shift} ms. */
        static byte[] retime(byte[] data, long shift) {
            try {
                if (data.length > 1 && (data[0] & 0xff) == 0x1f && (data[1] & 0xff) == 0x8b) {
                    JsonNode env;
                    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
                        env = JSON.readTree(in);
                    }
                    for (JsonNode ev : env.path("logEvents")) {
                        ObjectNode e = (ObjectNode) ev;
                        e.put("timestamp", e.path("timestamp").asLong() + shift);
                        String msg = e.path("message").asText("");
                        if (msg.startsWith("{") && msg.contains("\"_aws\"")) {
                            JsonNode doc = JSON.readTree(msg);
                            if (doc.path("_aws").has("Timestamp")) {
                                ((ObjectNode) doc.path("_aws"))
                                        .put(
                                                "Timestamp",
                                                doc.path("_aws")
                                                                .path("Timestamp")
                                                                .asLong()
                                                        + shift);
                                e.put("message", JSON.writeValueAsString(doc));
                            }
                        }
                    }
                    return Gzip.gzip(JSON.writeValueAsBytes(env));
                }
                JsonNode n = JSON.readTree(data);
                if (n instanceof ObjectNode o && o.has("ts")) {
                    o.put("ts", o.path("ts").asLong() + shift);
                    return JSON.writeValueAsBytes(o);
                }
                return data;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot retime a recorded record", e);
            }
        }
    }

    // --- (b) The high-cardinality mix --------------------------------------------------------------------------

    /**
     * {@code series} series (10 metric names of Lambda functions and DynamoDB tables x {@code series / 10} entities),
     * each sending its minute once a minute, as metric agents and EMF arrays do: one record of
     * {@value #PER_MINUTE} datapoints (one every 6 s of the minute) that arrives between 60 and 110 s after the
     * minute starts (each series at its own phase), partition key the series. Values by kind: latencies
     * log-normal, counts small integers (mostly 0 for errors and throttles), gauges in a narrow band. Deterministic.
     */
    static final class Mix implements Traffic {
        static final int PER_MINUTE = 10;
        static final String[][] NAMES = {
            {"lambda.duration", "Milliseconds", "latency"},
            {"lambda.invocations", "Count", "count"},
            {"lambda.errors", "Count", "rare"},
            {"lambda.throttles", "Count", "rare"},
            {"lambda.concurrency", "Count", "gauge"},
            {"ddb.latency", "Milliseconds", "latency"},
            {"ddb.consumed_wcu", "Count", "count"},
            {"ddb.consumed_rcu", "Count", "count"},
            {"ddb.throttles", "Count", "rare"},
            {"ddb.item_bytes", "Bytes", "wide"}
        };

        private final int series;
        private final long dataStart;
        private final long dataEnd;
        private final String[] prefix;
        private final String[] keys;
        private final String[] unitSuffix;
        private final String[] kind;
        private final long[] phase;

        /** Series with data in the minutes [{@code dataStart}, {@code dataEnd}). */
        Mix(int series, long dataStart, long dataEnd) {
            this.series = series;
            this.dataStart = dataStart;
            this.dataEnd = dataEnd;
            this.prefix = new String[series];
            this.keys = new String[series];
            this.unitSuffix = new String[series];
            this.kind = new String[series];
            this.phase = new long[series];
            int entities = Math.max(1, series / NAMES.length);
            for (int i = 0; i < series; i++) {
                String[] n = NAMES[i / entities % NAMES.length];
                int entity = i % entities;
                boolean lambda = n[0].startsWith("lambda.");
                Map<String, String> dims = new LinkedHashMap<>();
                dims.put(
                        lambda ? "function" : "table",
                        String.format(
                                Locale.ROOT, lambda ? "svc-%03d-handler-%04d" : "tbl-%03d-%04d", entity % 97, entity));
                dims.put("region", "us-east-1");
                keys[i] = SeriesKey.of(n[0], dims);
                prefix[i] = "{\"name\":\"" + n[0] + "\",\"dims\":{\"" + (lambda ? "function" : "table") + "\":\""
                        + dims.values().iterator().next() + "\",\"region\":\"us-east-1\"},\"ts\":";
                unitSuffix[i] = ",\"unit\":\"" + n[1] + "\"}\n";
                kind[i] = n[2];
                phase[i] = 60_000L + new SplittableRandom(i * 7919L + 17).nextLong(50_000L);
            }
        }

        @Override
        public String name() {
            return "mix";
        }

        int series() {
            return series;
        }

        String key(int i) {
            return keys[i];
        }

        /** Name and dimensions of series {@code i}, as a query asks for it. */
        ObjectNode spec(int i) {
            try {
                JsonNode first = JSON.readTree(prefix[i] + "0" + unitSuffix[i]);
                ObjectNode n = JSON.createObjectNode();
                n.put("name", first.path("name").asText());
                n.set("dims", first.path("dims"));
                return n;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public List<Rec> arrivals(long from, long to) {
            List<Rec> out = new ArrayList<>();
            // A minute's record arrives 60..110 s after the minute starts.
            for (long minute = Math.floorDiv(from - 110_000L, MINUTE) * MINUTE; minute < to; minute += MINUTE) {
                if (minute < dataStart || minute >= dataEnd) {
                    continue;
                }
                for (int i = 0; i < series; i++) {
                    long arrival = minute + phase[i];
                    if (arrival >= from && arrival < to) {
                        out.add(new Rec(arrival, keys[i], record(i, minute)));
                    }
                }
            }
            out.sort(Comparator.comparingLong(Rec::arrival));
            return out;
        }

        /** The datapoints of series {@code i} in the minute starting {@code minute}: {@code [ts, value]} pairs. */
        double[][] datapoints(int i, long minute) {
            SplittableRandom rnd = new SplittableRandom(i * 1_000_003L + minute / MINUTE);
            double[][] out = new double[PER_MINUTE][2];
            for (int k = 0; k < PER_MINUTE; k++) {
                out[k][0] = minute + k * 6_000L + rnd.nextLong(1_000L);
                out[k][1] = value(kind[i], rnd);
            }
            return out;
        }

        private byte[] record(int i, long minute) {
            StringBuilder sb = new StringBuilder(PER_MINUTE * 110);
            for (double[] dp : datapoints(i, minute)) {
                sb.append(prefix[i])
                        .append((long) dp[0])
                        .append(",\"value\":")
                        .append(format(dp[1]))
                        .append(unitSuffix[i]);
            }
            return sb.toString().getBytes(StandardCharsets.UTF_8);
        }

        static String format(double v) {
            return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.3f", v);
        }

        /** Values as printed, so the expected sums are those of the parsed values. */
        private static double value(String kind, SplittableRandom rnd) {
            double v = switch (kind) {
                case "latency" -> Math.exp(Math.log(40) + rnd.nextGaussian() * 0.8);
                case "count" -> rnd.nextInt(50);
                case "rare" -> rnd.nextInt(100) < 3 ? 1 + rnd.nextInt(3) : 0;
                case "gauge" -> 20 + rnd.nextInt(10);
                default -> Math.exp(Math.log(2_000) + rnd.nextGaussian() * 1.5);
            };
            return Double.parseDouble(format(v));
        }
    }

    // --- The event source mapping ------------------------------------------------------------------------------

    /**
     * The Kinesis event source mapping as the template configures it: records go to shards by the MD5 of their
     * partition key (the shards split the hash key space evenly, as a new stream's do); per shard, a batch starts
     * with the first record not yet taken and closes {@code windowMillis} later or at {@code batchSize} records;
     * one batch a shard at a time (ParallelizationFactor 1), invoked when it closes.
     */
    static final class Batcher {
        private final int shards;
        private final int batchSize;
        private final long windowMillis;
        private final List<ArrayDeque<Rec>> pending = new ArrayList<>();
        private final long[] nextSequence;

        Batcher(int shards, int batchSize, long windowMillis) {
            this.shards = shards;
            this.batchSize = batchSize;
            this.windowMillis = windowMillis;
            this.nextSequence = new long[shards];
            for (int i = 0; i < shards; i++) {
                pending.add(new ArrayDeque<>());
            }
        }

        /** A batch ready for an invocation at {@code at}. */
        record Batch(long at, int shard, KinesisEvent event, int records) {}

        void add(List<Rec> records) {
            for (Rec r : records) {
                pending.get(shard(r.partitionKey(), shards)).add(r);
            }
        }

        /** The batches that close at or before {@code until}, by time; later ones stay pending. */
        List<Batch> closedBy(long until) {
            List<Batch> out = new ArrayList<>();
            for (int s = 0; s < shards; s++) {
                ArrayDeque<Rec> q = pending.get(s);
                while (!q.isEmpty()) {
                    long first = q.peekFirst().arrival();
                    long closes = first + windowMillis;
                    List<Rec> batch = new ArrayList<>();
                    for (Rec r : q) {
                        if (batch.size() == batchSize || r.arrival() >= closes) {
                            break;
                        }
                        batch.add(r);
                    }
                    long at = batch.size() == batchSize
                            ? batch.get(batch.size() - 1).arrival()
                            : closes;
                    if (at > until) {
                        break;
                    }
                    for (int i = 0; i < batch.size(); i++) {
                        q.pollFirst();
                    }
                    out.add(new Batch(at, s, event(s, batch), batch.size()));
                }
            }
            out.sort(Comparator.comparingLong(Batch::at));
            return out;
        }

        int pendingRecords() {
            return pending.stream().mapToInt(ArrayDeque::size).sum();
        }

        private KinesisEvent event(int shard, List<Rec> batch) {
            String shardId = String.format(Locale.ROOT, "shardId-%012d", shard);
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>(batch.size());
            for (Rec rec : batch) {
                records.add(KinesisRecords.record(
                        Datasets.STREAM_ARN,
                        shardId,
                        KinesisRecords.sequence(nextSequence[shard]++),
                        rec.partitionKey(),
                        rec.data(),
                        rec.arrival()));
            }
            KinesisEvent event = new KinesisEvent();
            event.setRecords(records);
            return event;
        }

        /** Kinesis' placement: the MD5 of the partition key as a 128-bit number, in even hash key ranges. */
        static int shard(String partitionKey, int shards) {
            try {
                byte[] md5 = MessageDigest.getInstance("MD5").digest(partitionKey.getBytes(StandardCharsets.UTF_8));
                BigInteger hash = new BigInteger(1, md5);
                return hash.multiply(BigInteger.valueOf(shards)).shiftRight(128).intValue();
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
