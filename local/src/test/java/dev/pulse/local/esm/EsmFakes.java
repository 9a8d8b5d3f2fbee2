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
package dev.pulse.local.esm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.local.template.MappingSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/** In-memory stand-ins for the shard reader, the function and the destination, for driving a ShardProcessor. */
final class EsmFakes {

    static final ObjectMapper JSON = new ObjectMapper();
    static final Instant T0 = Instant.parse("2025-06-05T18:21:49.250Z");
    static final String FUNCTION_ARN = "arn:aws:lambda:us-east-1:000000000000:function:pulse-compact";
    static final String SHARD_ID = "shardId-000000000000";
    static final String KINESIS_ARN = "arn:aws:kinesis:us-east-1:000000000000:stream/pulse-ingest";

    private EsmFakes() {}

    // ---- records ----

    /** A Kinesis record whose data is {@code data}, as the reader would deliver it. */
    static StreamRecord kinesis(String seq, Instant arrival, String data) {
        return kinesis(seq, arrival, data, data.length());
    }

    static StreamRecord kinesis(String seq, Instant arrival, String data, int sizeBytes) {
        ObjectNode inner = JSON.createObjectNode()
                .put("kinesisSchemaVersion", "1.0")
                .put("partitionKey", "pk")
                .put("sequenceNumber", seq)
                .put("data", Base64.getEncoder().encodeToString(data.getBytes(StandardCharsets.UTF_8)))
                .put("approximateArrivalTimestamp", arrival.toEpochMilli() / 1000.0);
        ObjectNode record = JSON.createObjectNode();
        record.set("kinesis", inner);
        record.put("eventSource", "aws:kinesis")
                .put("eventName", "aws:kinesis:record")
                .put("eventSourceARN", KINESIS_ARN);
        return new StreamRecord(seq, "pk", arrival, sizeBytes, record);
    }

    /** {@code n} Kinesis records with sequence numbers {@code first, first+1, ...}, arriving a second apart. */
    static List<StreamRecord> kinesisRecords(int first, int n) {
        List<StreamRecord> records = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            records.add(kinesis(String.valueOf(first + i), T0.plusSeconds(i), "{\"n\":" + (first + i) + "}"));
        }
        return records;
    }

    static List<String> seqs(int first, int n) {
        List<String> seqs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            seqs.add(String.valueOf(first + i));
        }
        return seqs;
    }

    static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- mapping ----

    /** A mapping spec with Lambda's defaults, changed through the {@code with...} methods. */
    record Spec(
            int batchSize,
            Duration window,
            int parallelization,
            boolean bisect,
            int retries,
            Duration maxAge,
            boolean reportFailures) {

        static Spec kinesisDefaults() {
            return new Spec(100, Duration.ZERO, 1, false, -1, null, false);
        }

        Spec withBatchSize(int n) {
            return new Spec(n, window, parallelization, bisect, retries, maxAge, reportFailures);
        }

        Spec withWindow(Duration w) {
            return new Spec(batchSize, w, parallelization, bisect, retries, maxAge, reportFailures);
        }

        Spec withParallelization(int p) {
            return new Spec(batchSize, window, p, bisect, retries, maxAge, reportFailures);
        }

        Spec withBisect() {
            return new Spec(batchSize, window, parallelization, true, retries, maxAge, reportFailures);
        }

        Spec withRetries(int r) {
            return new Spec(batchSize, window, parallelization, bisect, r, maxAge, reportFailures);
        }

        Spec withMaxAge(Duration a) {
            return new Spec(batchSize, window, parallelization, bisect, retries, a, reportFailures);
        }

        Spec withReportBatchItemFailures() {
            return new Spec(batchSize, window, parallelization, bisect, retries, maxAge, true);
        }

        MappingSpec build() {
            return new MappingSpec(
                    "IngestFunction",
                    "Stream",
                    KINESIS_ARN,
                    "TRIM_HORIZON",
                    batchSize,
                    window,
                    parallelization,
                    bisect,
                    retries,
                    maxAge,
                    reportFailures,
                    "arn:aws:sqs:us-east-1:000000000000:pulse-dlq");
        }
    }

    // ---- fakes ----

    /** A shard holding a list of records; {@link #append} adds more, {@link #close} ends it. */
    static final class InMemoryShard implements ShardSource {
        private final String streamArn;
        private final List<StreamRecord> records = new ArrayList<>();
        private final List<Integer> readSizes = new ArrayList<>();
        private int position;
        private boolean closed;

        InMemoryShard(String streamArn, List<StreamRecord> records) {
            this.streamArn = streamArn;
            this.records.addAll(records);
        }

        synchronized InMemoryShard append(List<StreamRecord> more) {
            records.addAll(more);
            return this;
        }

        synchronized InMemoryShard close() {
            closed = true;
            return this;
        }

        /** How many records have been handed out. */
        synchronized int position() {
            return position;
        }

        /** The {@code max} of every read, in order. */
        synchronized List<Integer> readSizes() {
            return List.copyOf(readSizes);
        }

        @Override
        public String shardId() {
            return SHARD_ID;
        }

        @Override
        public String streamArn() {
            return streamArn;
        }

        @Override
        public synchronized List<StreamRecord> read(int max) {
            readSizes.add(max);
            int end = Math.min(records.size(), position + max);
            List<StreamRecord> out = List.copyOf(records.subList(position, end));
            position = end;
            return out;
        }

        @Override
        public synchronized boolean exhausted() {
            return closed && position == records.size();
        }
    }

    /** One invocation as the fake function saw it. */
    record Call(int index, List<String> seqs, int shardPosition) {}

    /** A function whose answers come from a script; it keeps every payload's sequence numbers. */
    static final class ScriptedInvoker implements FunctionInvoker {
        private final Function<Call, InvokeResult> script;
        private final InMemoryShard shard;
        private final List<Call> calls = new CopyOnWriteArrayList<>();

        ScriptedInvoker(InMemoryShard shard, Function<Call, InvokeResult> script) {
            this.shard = shard;
            this.script = script;
        }

        @Override
        public InvokeResult invoke(byte[] payload) {
            List<String> seqs = new ArrayList<>();
            for (JsonNode record :
                    parse(new String(payload, StandardCharsets.UTF_8)).get("Records")) {
                seqs.add(record.get("kinesis").get("sequenceNumber").textValue());
            }
            Call call = new Call(calls.size(), List.copyOf(seqs), shard.position());
            calls.add(call);
            return script.apply(call);
        }

        List<Call> calls() {
            return List.copyOf(calls);
        }

        /** The sequence numbers of every invocation, in order. */
        List<List<String>> batches() {
            return calls.stream().map(Call::seqs).toList();
        }
    }

    static InvokeResult ok(Call call) {
        return new InvokeResult(null, null, "req-" + call.index());
    }

    static InvokeResult error(Call call) {
        return new InvokeResult(
                "{\"errorMessage\":\"boom\",\"errorType\":\"RuntimeException\"}".getBytes(StandardCharsets.UTF_8),
                "Unhandled",
                "req-" + call.index());
    }

    static InvokeResult response(Call call, String body) {
        return new InvokeResult(
                body == null ? null : body.getBytes(StandardCharsets.UTF_8), null, "req-" + call.index());
    }

    static String failures(String... ids) {
        StringBuilder sb = new StringBuilder("{\"batchItemFailures\":[");
        for (int i = 0; i < ids.length; i++) {
            sb.append(i > 0 ? "," : "")
                    .append("{\"itemIdentifier\":\"")
                    .append(ids[i])
                    .append("\"}");
        }
        return sb.append("]}").toString();
    }

    /** The failure records the destination received. */
    static final class RecordingDestination implements FailureDestination {
        final List<JsonNode> sent = new CopyOnWriteArrayList<>();

        @Override
        public void send(String failureContextJson) {
            sent.add(parse(failureContextJson));
        }
    }
}
