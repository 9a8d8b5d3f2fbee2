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
package dev.pulse.store.codec;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.model.Datapoint;
import dev.pulse.model.MetricKind;
import dev.pulse.model.SeriesKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * What keeping an OTLP metric's type costs: one attribute on the catalog and name entries, which are written once per
 * series (and name) per ingest container, never on the partials, whose bytes and write units stay as they were.
 */
class CatalogKindCostTest {

    private static final long T0 = 1_795_262_400_000L;
    /** The OpenTelemetry SDKs' default explicit bounds for a histogram. */
    private static final List<Double> SDK_BOUNDS = List.of(
            0.0, 5.0, 10.0, 25.0, 50.0, 75.0, 100.0, 250.0, 500.0, 750.0, 1000.0, 2500.0, 5000.0, 7500.0, 10000.0);

    private static Partial partial(MetricKind kind) {
        BatchAggregator agg = new BatchAggregator("shardId-000000000000");
        Map<String, String> dims = Map.of(
                "service.name",
                "checkout",
                "http.route",
                "/api/cart/{id}",
                "http.request.method",
                "GET",
                "http.response.status_code",
                "200",
                "deployment.environment",
                "prod");
        agg.addRecord(
                "1", List.of(new Datapoint("http.server.request.duration", dims, T0, 0.25, "Seconds", null, kind)));
        return agg.partials().iterator().next();
    }

    @Test
    void partial_whenKindKept_hasTheSameBytes() {
        MetricKind kind = MetricKind.histogram(MetricKind.Temporality.DELTA, "s", SDK_BOUNDS);
        assertThat(PartialItems.itemBytes(PartialItems.partial(partial(kind), 86_400, 1)))
                .isEqualTo(PartialItems.itemBytes(PartialItems.partial(partial(null), 86_400, 1)));
    }

    /** A typical OTLP series' catalog entry with the SDK's 15 bounds stays under 1 KB: one write unit, as without. */
    @Test
    void catalog_whenTypicalOtlpHistogram_staysOneWriteUnit() {
        Partial p = partial(MetricKind.histogram(MetricKind.Temporality.DELTA, "s", SDK_BOUNDS));
        int without = PartialItems.itemBytes(PartialItems.catalog(p.seriesKey(), p.name(), p.dims()));
        int with = PartialItems.itemBytes(PartialItems.catalog(p.seriesKey(), p.name(), p.dims(), p.kind()));
        int name = PartialItems.itemBytes(PartialItems.name(p.name(), p.kind()));
        System.out.printf(
                "catalog entry %d -> %d bytes; name entry %d -> %d bytes%n",
                without, with, PartialItems.itemBytes(PartialItems.name(p.name())), name);
        assertThat(with - without).isBetween(1, 100); // 'otel' and 'histogram|delta|0,5,...,10000|s'
        assertThat(Math.ceilDiv(with, 1024))
                .isEqualTo(Math.ceilDiv(without, 1024))
                .isEqualTo(1);
        assertThat(name).isLessThan(1024);
    }

    /** The most a kind can add (bounds capped, unit at most 64 characters): less than half a write unit. */
    @Test
    void catalog_whenLargestKind_addsLessThanHalfAWriteUnit() {
        List<Double> many = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            many.add(i * 0.5 + 0.25);
        }
        MetricKind kind = MetricKind.histogram(MetricKind.Temporality.DELTA, "€".repeat(64), many);
        assertThat(kind.bounds()).isNotEmpty();
        String key = SeriesKey.of("m", Map.of("k", "v"));
        int without = PartialItems.itemBytes(PartialItems.catalog(key, "m", Map.of("k", "v")));
        int with = PartialItems.itemBytes(PartialItems.catalog(key, "m", Map.of("k", "v"), kind));
        assertThat(with - without).isLessThan(512);
        Map<String, AttributeValue> item = PartialItems.catalog(key, "m", Map.of("k", "v"), kind);
        assertThat(MetricKind.decode(item.get(PartialItems.KIND).s())).isEqualTo(kind);
    }
}
