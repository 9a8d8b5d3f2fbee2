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

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;

/** OTLP export requests for tests. */
final class OtlpRequests {

    private OtlpRequests() {}

    static KeyValue attr(String k, String v) {
        return KeyValue.newBuilder()
                .setKey(k)
                .setValue(AnyValue.newBuilder().setStringValue(v))
                .build();
    }

    static NumberDataPoint point(long millis, double value, KeyValue... attrs) {
        NumberDataPoint.Builder p = NumberDataPoint.newBuilder()
                .setTimeUnixNano(millis * 1_000_000L)
                .setAsDouble(value);
        for (KeyValue a : attrs) {
            p.addAttributes(a);
        }
        return p.build();
    }

    /** One gauge {@code name} with {@code series} series ({@code i=0..series-1}), one point each of value i. */
    static ExportMetricsServiceRequest gauge(String name, int series, long millis) {
        Gauge.Builder g = Gauge.newBuilder();
        for (int i = 0; i < series; i++) {
            g.addDataPoints(point(millis, i, attr("i", Integer.toString(i))));
        }
        return request(Metric.newBuilder().setName(name).setGauge(g).build());
    }

    static ExportMetricsServiceRequest request(Metric... metrics) {
        ScopeMetrics.Builder sm = ScopeMetrics.newBuilder();
        for (Metric m : metrics) {
            sm.addMetrics(m);
        }
        return ExportMetricsServiceRequest.newBuilder()
                .addResourceMetrics(ResourceMetrics.newBuilder()
                        .setResource(Resource.newBuilder().addAttributes(attr("service.name", "checkout")))
                        .addScopeMetrics(sm))
                .build();
    }
}
