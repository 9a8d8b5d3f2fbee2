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
package dev.pulse.push;

import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.time.Clock;

/**
 * The work behind both push endpoints: read the body (bounded), split it into records by series
 * ({@link RecordPacker}), put them on the stream ({@link KinesisWriter}), and say what was stored and what was
 * rejected. A request is answered only after its records are in Kinesis.
 */
public final class PushService {

    /**
     * What a request stored: points put; points rejected alone by ingest's validation (with the first reason); points
     * dropped while reading (remote write's non-finite samples, exemplars and native histograms, with the first
     * reason); staleness markers dropped; records put.
     */
    public record Outcome(
            int points,
            int rejected,
            String firstRejection,
            int dropped,
            String firstDrop,
            int staleMarkers,
            int records) {}

    private final PushConfig config;
    private final RecordPacker packer;
    private final KinesisWriter writer;
    private final Clock clock;

    PushService(PushConfig config, RecordPacker packer, KinesisWriter writer, Clock clock) {
        this.config = config;
        this.packer = packer;
        this.writer = writer;
        this.clock = clock;
    }

    /** {@code POST /otlp/v1/metrics}. */
    Outcome otlp(
            byte[] body,
            OtlpBody.Encoding encoding,
            String contentEncoding,
            Deadline deadline,
            InvocationMetrics<PushMetric> metrics)
            throws PushException {
        checkSize(body);
        ExportMetricsServiceRequest request =
                OtlpBody.read(body, encoding, contentEncoding, config.maxDecompressedBytes());
        return store(request, 0, null, 0, deadline, metrics);
    }

    /** {@code POST /prometheus/api/v1/write}. */
    Outcome remoteWrite(
            byte[] body,
            String contentType,
            String contentEncoding,
            Deadline deadline,
            InvocationMetrics<PushMetric> metrics)
            throws PushException {
        RemoteWriteDecoder.checkHeaders(contentType, contentEncoding);
        checkSize(body);
        RemoteWriteDecoder.Decoded d = new RemoteWriteDecoder(
                        config.maxDecompressedBytes(), config.maxSeriesPerRequest(), config.maxDatapointsPerRequest())
                .decode(body);
        metrics.add(PushMetric.STALE_MARKERS_DROPPED, d.staleMarkers());
        return store(d.request(), d.rejected(), d.firstRejection(), d.staleMarkers(), deadline, metrics);
    }

    private void checkSize(byte[] body) throws PushException {
        if (body.length > config.maxBodyBytes()) {
            throw PushException.tooLarge("the body is " + body.length + " bytes, more than " + config.maxBodyBytes()
                    + " (MAX_BODY_BYTES): send smaller batches");
        }
    }

    private Outcome store(
            ExportMetricsServiceRequest request,
            int dropped,
            String firstDrop,
            int stale,
            Deadline deadline,
            InvocationMetrics<PushMetric> metrics)
            throws PushException {
        RecordPacker.Packed packed = packer.pack(request, clock.millis());
        metrics.add(PushMetric.DATAPOINTS_REJECTED, dropped + packed.rejected());
        writer.put(packed.records(), deadline, metrics);
        metrics.add(PushMetric.DATAPOINTS_IN, packed.points());
        return new Outcome(
                packed.points(),
                packed.rejected(),
                packed.firstRejection(),
                dropped,
                firstDrop,
                stale,
                packed.records().size());
    }
}
