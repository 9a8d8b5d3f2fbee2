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
package dev.pulse.ingest.metricstream;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.ingest.VirtualShard;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import java.util.ArrayList;
import java.util.List;

/**
 * Stores a Firehose delivery of a CloudWatch metric stream through ingest's exactly-once path, as if a shard of its own
 * had delivered it: the shard is the delivery ({@code firehose-<requestId>}), the sequence number each record's place in
 * it. Firehose sends every attempt at a delivery with the same request id, so a retry after a lost response, a timeout
 * or a partial failure finds the records its earlier attempts committed and skips them, and two attempts running at
 * once write the same partial slots, where the newer generation counts (docs/design.md, "Exactly once"). Each record is
 * decoded as a metric stream record ({@code RecordDecoder#decodeMetricStreamUnits}, wired in
 * {@link MetricStreamFunction}), its datapoints checked against the delivery's timestamp: every attempt accepts the
 * same ones.
 */
public final class MetricStreamService {

    /** The stream name the deliveries' checkpoints are kept under: {@code W#pulse-metric-stream#firehose-<id>}. */
    public static final String STREAM = "pulse-metric-stream";

    private final IngestService ingest;
    private final String region;

    public MetricStreamService(IngestService ingest, String region) {
        this.ingest = ingest;
        this.region = region;
    }

    /** The shard a delivery is ingested as. */
    static String shard(String requestId) {
        return "firehose-" + requestId;
    }

    public IngestResult deliver(FirehoseRequest request, Deadline deadline, InvocationMetrics<IngestMetric> counters) {
        VirtualShard shard = new VirtualShard(region, STREAM, shard(request.requestId()));
        List<KinesisEvent.KinesisEventRecord> records =
                new ArrayList<>(request.records().size());
        for (int i = 0; i < request.records().size(); i++) {
            records.add(shard.record(Integer.toString(i + 1), request.records().get(i), request.timestamp()));
        }
        // An attempt may store and commit only part of the delivery (after an earlier attempt failed, ingest takes the
        // records in smaller pieces); the next piece starts right away instead of waiting for Firehose's retry. Each
        // round skips what the ones before committed, so at most one round per record can make progress.
        IngestResult r = ingest.ingest(records, deadline, counters);
        for (int round = 1;
                r.endedEarly() != null && !r.failed() && round <= records.size() && !deadline.expired();
                round++) {
            r = ingest.ingest(records, deadline, counters);
        }
        return r;
    }
}
