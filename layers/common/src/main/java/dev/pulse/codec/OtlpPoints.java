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

import dev.pulse.model.Datapoint;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.resource.v1.Resource;
import java.util.List;
import java.util.Map;

/**
 * Ingest's OTLP mapping one data point at a time, for code that checks or splits a request before it becomes a
 * Kinesis record (the push endpoints): the dimensions a point is stored with, and the datapoints it becomes. The rules
 * are {@link OtlpDecoder}'s own code, so a sender and ingest cannot disagree on what a series is or which point is
 * valid.
 */
public final class OtlpPoints {

    private OtlpPoints() {}

    /**
     * The dimensions every point of {@code resource} starts from (its attributes less the SDK's own and
     * {@code service.instance.id}); throws when they are more than a datapoint may have.
     */
    public static Map<String, String> resourceDims(Resource resource, String at) throws DecodeException {
        return OtlpDecoder.resourceDims(resource, at);
    }

    /**
     * The dimensions a point with {@code attributes} is stored with under {@code resourceDims}: its attributes win on a
     * clash, an empty value removes the key, values become text as ingest writes them (an int {@code 200} and a string
     * {@code "200"} are one dimension value). Throws when they are more than a datapoint may have.
     */
    public static Map<String, String> dims(Map<String, String> resourceDims, List<KeyValue> attributes, String at)
            throws DecodeException {
        return OtlpDecoder.dims(resourceDims, attributes, at);
    }

    /** {@code metric} checked as a whole (unit, temporality, data present), ready to map point by point. */
    public static Points of(Metric metric, String at) throws DecodeException {
        return new Points(metric, OtlpDecoder.checkMetric(metric, at), at);
    }

    /** A metric that passed the metric-wide checks. */
    public static final class Points {
        private final Metric metric;
        private final String unit;
        private final String at;

        private Points(Metric metric, String unit, String at) {
            this.metric = metric;
            this.unit = unit;
            this.at = at;
        }

        /** How many data points the metric holds. */
        public int count() {
            return OtlpDecoder.pointCount(metric);
        }

        /**
         * The datapoints ingest makes of data point {@code index} (none for a point without a recorded value, two for a
         * summary), not yet validated against the limits and the time window; throws what ingest would make poison.
         */
        public List<Datapoint> datapoints(int index, Map<String, String> resourceDims) throws DecodeException {
            DecodeBudget budget = DecodeBudget.forRecord();
            List<Datapoint> out = budget.unit();
            try {
                OtlpDecoder.point(metric, unit, index, resourceDims, at, out, budget);
            } catch (DecodeException e) {
                throw e;
            } catch (RuntimeException e) {
                // As RecordDecoder: whatever else a point throws makes ingest's record poison.
                throw new DecodeException(at + ": undecodable data point #" + index + ": " + e, e);
            }
            return out;
        }
    }
}
