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
package dev.pulse.rules;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.ingest.VirtualShard;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.rules.internal.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * Recording rules' samples stored through ingest's exactly-once path, as if a shard of their own had delivered them:
 * the shard is the rule ({@code rule-<fingerprint of its key>}), the sequence number the evaluation time (epoch ms x
 * 1000 + the record's index), so the rule's checkpoint skips a time already stored (a retried or repeated
 * evaluation), and two runs storing the same time write the same partial slots, where the newer generation counts.
 * Each sample is a native datapoint named by {@code __name__} with the other labels as dimensions, stamped
 * {@code t - 30 s} (the minute before the evaluation, see {@link RecordSink}); samples in label order, at most
 * {@value #PER_RECORD} a record.
 */
public final class IngestRecordSink implements RecordSink {

    /** The stream name the rules' checkpoints are kept under: {@code W#pulse-rules#rule-<fingerprint>}. */
    public static final String STREAM = "pulse-rules";

    static final int PER_RECORD = 100;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final IngestService ingest;
    private final Supplier<Deadline> deadline;
    private final Clock clock;
    private final String region;

    public IngestRecordSink(IngestService ingest, Supplier<Deadline> deadline, Clock clock, String region) {
        this.ingest = ingest;
        this.deadline = deadline;
        this.clock = clock;
        this.region = region;
    }

    /** The shard a rule's records are ingested as: no character ingest's event ids or keys give a meaning to. */
    static String shard(String ruleKey) {
        return "rule-" + Fingerprint.of(new TreeMap<>(Map.of("rule", ruleKey)));
    }

    @Override
    public void write(String ruleKey, long evaluatedAt, List<Recorded> samples) throws NotStoredException {
        List<Recorded> sorted = new ArrayList<>(samples);
        sorted.sort(Comparator.comparing(r -> r.labels().toString()));
        VirtualShard shard = new VirtualShard(region, STREAM, shard(ruleKey));
        long arrival = clock.millis();
        List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
        for (int from = 0; from < sorted.size(); from += PER_RECORD) {
            ArrayNode points = JSON.createArrayNode();
            for (Recorded r : sorted.subList(from, Math.min(sorted.size(), from + PER_RECORD))) {
                ObjectNode p = points.addObject();
                p.put("name", r.labels().get("__name__"));
                ObjectNode dims = p.putObject("dims");
                r.labels().forEach((k, v) -> {
                    if (!k.equals("__name__")) {
                        dims.put(k, v);
                    }
                });
                p.put("ts", evaluatedAt - 30_000);
                p.put("value", r.value());
            }
            String sequence = Long.toString(evaluatedAt * 1000 + records.size());
            records.add(shard.record(sequence, points.toString().getBytes(StandardCharsets.UTF_8), arrival));
        }
        IngestResult r = ingest.ingest(records, deadline.get(), new InvocationMetrics<>(IngestMetric.class));
        if (r.failed()) {
            throw new NotStoredException("ingest failed: " + r.failureReason());
        }
        if (r.endedEarly() != null) {
            throw new NotStoredException("ingest stored part of the samples: " + r.endedEarly());
        }
        if (r.poisonRecords() > 0) {
            throw new IllegalArgumentException(r.poisonRecords() + " of " + records.size()
                    + " records of recorded samples refused (in the dead-letter queue with the reason)");
        }
    }
}
