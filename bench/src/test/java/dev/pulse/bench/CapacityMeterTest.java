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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.pulse.bench.CapacityMeter.Term;
import dev.pulse.store.schema.KeyScheme;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemResponse;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemResponse;
import software.amazon.awssdk.services.dynamodb.model.Capacity;
import software.amazon.awssdk.services.dynamodb.model.ConditionalCheckFailedException;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.GetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.KeysAndAttributes;
import software.amazon.awssdk.services.dynamodb.model.PutItemRequest;
import software.amazon.awssdk.services.dynamodb.model.PutItemResponse;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;
import software.amazon.awssdk.services.dynamodb.model.QueryResponse;
import software.amazon.awssdk.services.dynamodb.model.ReturnConsumedCapacity;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemResponse;
import software.amazon.awssdk.services.dynamodb.model.WriteRequest;

class CapacityMeterTest {

    private static final String TABLE = "pulse";
    private static final long HOUR = 1_795_212_000_000L; // 2026-11-20T22:00Z
    private final CapacityMeter.Ledger ledger = new CapacityMeter.Ledger();
    private final CapacityMeter ingest = new CapacityMeter("ingest", ledger);
    private final CapacityMeter compact = new CapacityMeter("compact", ledger);
    private final CapacityMeter query = new CapacityMeter("query", ledger);

    @Test
    void modifyRequest_whenAnyDynamoDbCall_asksForTheConsumedCapacityWithIndexes() {
        List<SdkRequest> requests = List.of(
                QueryRequest.builder().tableName(TABLE).build(),
                PutItemRequest.builder().tableName(TABLE).build(),
                UpdateItemRequest.builder().tableName(TABLE).build(),
                BatchWriteItemRequest.builder().build(),
                BatchGetItemRequest.builder().build(),
                GetItemRequest.builder().tableName(TABLE).build());
        for (SdkRequest r : requests) {
            SdkRequest out = ingest.modifyRequest(() -> r, new ExecutionAttributes());
            assertThat(out.getValueForField("ReturnConsumedCapacity", String.class))
                    .as(r.getClass().getSimpleName())
                    .contains(ReturnConsumedCapacity.INDEXES.toString());
        }
    }

    @Test
    void record_whenBatchOfPartialsAndCatalog_splitsTheReportedTotalByEachItemsUnits() {
        Map<String, AttributeValue> small = partial("a", 100);
        Map<String, AttributeValue> large = partial("b", 1500); // two write units
        Map<String, AttributeValue> catalog =
                Map.of(KeyScheme.PK, s(KeyScheme.catalogPk("api.latency")), KeyScheme.SK, s("api.latency{}"));
        BatchWriteItemRequest request = BatchWriteItemRequest.builder()
                .requestItems(Map.of(TABLE, List.of(put(small), put(large), put(catalog))))
                .build();

        ingest.record(
                request,
                BatchWriteItemResponse.builder().consumedCapacity(cc(4.0, 0)).build());

        assertThat(ingest.tally(Term.PARTIALS).units()).isEqualTo(3.0);
        assertThat(ingest.tally(Term.PARTIALS).items()).isEqualTo(2);
        assertThat(ingest.tally(Term.CATALOG).units()).isEqualTo(1.0);
        assertThat(ingest.sizeChecks()).containsExactly(1, 0);
        assertThat(ledger.partialItems()).isEqualTo(2);
        assertThat(ledger.partialBytes()).isEqualTo(ItemSize.stored(small) + ItemSize.stored(large));
        assertThat(ledger.catalog()[0]).isEqualTo(1);
    }

    @Test
    void record_whenReportedTotalDiffersFromItemSizes_countsAMismatchAndKeepsTheReportedTotal() {
        BatchWriteItemRequest request = BatchWriteItemRequest.builder()
                .requestItems(Map.of(TABLE, List.of(put(partial("a", 10)))))
                .build();

        ingest.record(
                request,
                BatchWriteItemResponse.builder().consumedCapacity(cc(2.0, 0)).build());

        assertThat(ingest.tally(Term.PARTIALS).units()).isEqualTo(2.0);
        assertThat(ingest.sizeChecks()).containsExactly(1, 1);
    }

    @Test
    void record_whenIngestSetsMarks_filesHourAndDayMarksWithTheirIndexWrites() {
        ingest.record(
                mark(KeyScheme.hourlyPk("s{}", HOUR), KeyScheme.hour(HOUR)),
                UpdateItemResponse.builder().consumedCapacity(cc(2, 1)).build());
        ingest.record(
                mark(KeyScheme.dailyPk("s{}", HOUR), KeyScheme.day(HOUR)),
                UpdateItemResponse.builder().consumedCapacity(cc(2, 1)).build());

        assertThat(ingest.tally(Term.HOUR_MARKS).units()).isEqualTo(2);
        assertThat(ingest.tally(Term.HOUR_MARKS).indexUnits()).isEqualTo(1);
        assertThat(ingest.tally(Term.DAY_MARKS).units()).isEqualTo(2);
        assertThat(ledger.markOnly()[0]).isEqualTo(2);
    }

    @Test
    void record_whenTheBuilderPutsRollups_filesHourlyAndDailyWritesAndReplacesTheMarkOnlyItem() {
        String pk = KeyScheme.hourlyPk("s{}", HOUR);
        ingest.record(
                mark(pk, KeyScheme.hour(HOUR)),
                UpdateItemResponse.builder().consumedCapacity(cc(2, 1)).build());
        Map<String, AttributeValue> hourly = new HashMap<>(Map.of(
                KeyScheme.PK,
                s(pk),
                KeyScheme.SK,
                s(KeyScheme.hour(HOUR)),
                "b",
                AttributeValue.fromB(SdkBytes.fromByteArray(new byte[2000]))));

        compact.record(
                PutItemRequest.builder().tableName(TABLE).item(hourly).build(),
                PutItemResponse.builder()
                        .consumedCapacity(ConsumedCapacity.builder()
                                .capacityUnits(3.0)
                                .table(Capacity.builder().capacityUnits(2.0).build())
                                .globalSecondaryIndexes(Map.of(
                                        "due",
                                        Capacity.builder().capacityUnits(1.0).build()))
                                .build())
                        .build());

        assertThat(compact.tally(Term.HOURLY_BUILD_WRITES).units()).isEqualTo(3);
        assertThat(compact.tally(Term.HOURLY_BUILD_WRITES).indexUnits()).isEqualTo(1);
        assertThat(compact.sizeChecks()).containsExactly(1, 0);
        assertThat(ledger.markOnly()[0]).isZero();
        assertThat(ledger.rollups(CapacityMeter.HOURLY)).containsExactly(1, ItemSize.stored(hourly));
    }

    @Test
    void record_whenQueriesFindNothing_chargesDynamoDbsMinimumRead() {
        QueryRequest scan = QueryRequest.builder()
                .tableName(TABLE)
                .indexName("due")
                .expressionAttributeValues(Map.of(":q", s("2026-11-20T22#0")))
                .build();
        QueryRequest partials = QueryRequest.builder()
                .tableName(TABLE)
                .consistentRead(true)
                .expressionAttributeValues(Map.of(":pk", s(KeyScheme.partialPk("s{}", HOUR))))
                .build();
        QueryRequest hours = QueryRequest.builder()
                .tableName(TABLE)
                .consistentRead(true)
                .expressionAttributeValues(Map.of(":pk", s(KeyScheme.hourlyPk("s{}", HOUR))))
                .build();

        compact.record(
                scan,
                QueryResponse.builder().count(0).consumedCapacity(cc(0, 0)).build());
        compact.record(
                partials,
                QueryResponse.builder().count(0).consumedCapacity(cc(0, 0)).build());
        compact.record(
                hours,
                QueryResponse.builder().count(2).consumedCapacity(cc(3, 0)).build());

        assertThat(compact.tally(Term.QUEUE_SCANS).units()).isEqualTo(0.5);
        assertThat(compact.tally(Term.QUEUE_SCANS).floorUnits()).isEqualTo(0.5);
        assertThat(compact.tally(Term.HOURLY_BUILD_READS).units()).isEqualTo(1.0);
        assertThat(compact.tally(Term.DAILY_BUILD_READS).units()).isEqualTo(3.0);
        assertThat(compact.tally(Term.DAILY_BUILD_READS).floorUnits()).isZero();
    }

    @Test
    void record_whenTheQueryReadsPartialsAndRollups_filesThemApartAndChargesKeysWithoutItems() {
        QueryRequest partials = QueryRequest.builder()
                .tableName(TABLE)
                .expressionAttributeValues(Map.of(":pk", s(KeyScheme.partialPk("s{}", HOUR))))
                .build();
        query.record(
                partials,
                QueryResponse.builder()
                        .count(1)
                        .items(List.of(partial("a", 10)))
                        .consumedCapacity(cc(0.5, 0))
                        .build());
        Map<String, AttributeValue> k1 =
                Map.of(KeyScheme.PK, s(KeyScheme.hourlyPk("s{}", HOUR)), KeyScheme.SK, s(KeyScheme.hour(HOUR)));
        Map<String, AttributeValue> k2 =
                Map.of(KeyScheme.PK, s(KeyScheme.hourlyPk("t{}", HOUR)), KeyScheme.SK, s(KeyScheme.hour(HOUR)));
        Map<String, AttributeValue> k3 =
                Map.of(KeyScheme.PK, s(KeyScheme.hourlyPk("u{}", HOUR)), KeyScheme.SK, s(KeyScheme.hour(HOUR)));
        BatchGetItemRequest get = BatchGetItemRequest.builder()
                .requestItems(Map.of(
                        TABLE, KeysAndAttributes.builder().keys(k1, k2, k3).build()))
                .build();

        query.record(
                get,
                BatchGetItemResponse.builder()
                        .responses(Map.of(TABLE, List.of(k1)))
                        .consumedCapacity(List.of(cc(1.0, 0)))
                        .build());

        assertThat(query.tally(Term.QUERY_PARTIAL_READS).units()).isEqualTo(0.5);
        assertThat(query.tally(Term.QUERY_ROLLUP_READS).reportedUnits()).isEqualTo(1.0);
        assertThat(query.tally(Term.QUERY_ROLLUP_READS).floorUnits()).isEqualTo(1.0); // two keys without an item
        assertThat(query.tally(Term.QUERY_ROLLUP_READS).keys()).isEqualTo(3);
        assertThat(query.tally(Term.QUERY_ROLLUP_READS).items()).isEqualTo(1);
    }

    @Test
    void onExecutionFailure_whenAConditionalPutLoses_chargesItsItemSize() {
        Map<String, AttributeValue> item = Map.of(
                KeyScheme.PK,
                s(KeyScheme.hourlyPk("s{}", HOUR)),
                KeyScheme.SK,
                s(KeyScheme.hour(HOUR)),
                "b",
                AttributeValue.fromB(SdkBytes.fromByteArray(new byte[3000])));
        PutItemRequest put =
                PutItemRequest.builder().tableName(TABLE).item(item).build();

        compact.onExecutionFailure(failed(put), new ExecutionAttributes());

        assertThat(compact.tally(Term.HOURLY_BUILD_WRITES).failedConditions()).isEqualTo(1);
        assertThat(compact.tally(Term.HOURLY_BUILD_WRITES).estimatedUnits()).isEqualTo(3);
        assertThat(compact.tally(Term.HOURLY_BUILD_WRITES).units()).isEqualTo(3);
    }

    @Test
    void prefixes_whenTakenFromKeyScheme_namePartialsRollupsAndCatalog() {
        assertThat(CapacityMeter.PARTIAL).isEqualTo("P#");
        assertThat(CapacityMeter.HOURLY).isEqualTo("H#");
        assertThat(CapacityMeter.DAILY).isEqualTo("D#");
        assertThat(CapacityMeter.CATALOG).isEqualTo("C#");
    }

    @Test
    void daily24Bytes_whenADailyItemHoldsSomeHours_isTheItemReEncodedWithTwentyFour() {
        dev.pulse.aggregate.Summary one = new dev.pulse.aggregate.Summary();
        one.add(12.5);
        java.util.SortedMap<Integer, dev.pulse.aggregate.Summary> hours =
                new java.util.TreeMap<>(Map.of(22, one, 23, one));
        long day = Math.floorDiv(HOUR, 86_400_000L) * 86_400_000L;
        Map<String, AttributeValue> daily =
                new HashMap<>(dev.pulse.store.codec.RollupItems.daily("s{}", day, hours, 3650L * 86400));
        daily.put("v", AttributeValue.fromN("1795219500000"));
        java.util.SortedMap<Integer, dev.pulse.aggregate.Summary> full = new java.util.TreeMap<>();
        for (int h = 0; h < 24; h++) {
            full.put(h, one);
        }
        long expected = ItemSize.of(dev.pulse.store.codec.RollupItems.daily("s{}", day, full, 3650L * 86400))
                + ItemSize.of(Map.of("v", AttributeValue.fromN("1795219500000")));

        compact.record(
                PutItemRequest.builder().tableName(TABLE).item(daily).build(),
                PutItemResponse.builder().consumedCapacity(cc(1, 0)).build());

        assertThat(ledger.daily24Bytes()).isCloseTo(expected, within(1e-9));
        assertThat(ledger.dailyHours()).containsValue(2);
    }

    private static Context.FailedExecution failed(SdkRequest request) {
        return new Context.FailedExecution() {
            @Override
            public Throwable exception() {
                return ConditionalCheckFailedException.builder().message("lost").build();
            }

            @Override
            public SdkRequest request() {
                return request;
            }

            @Override
            public java.util.Optional<software.amazon.awssdk.http.SdkHttpRequest> httpRequest() {
                return java.util.Optional.empty();
            }

            @Override
            public java.util.Optional<software.amazon.awssdk.http.SdkHttpResponse> httpResponse() {
                return java.util.Optional.empty();
            }

            @Override
            public java.util.Optional<software.amazon.awssdk.core.SdkResponse> response() {
                return java.util.Optional.empty();
            }
        };
    }

    private static UpdateItemRequest mark(String pk, String sk) {
        return UpdateItemRequest.builder()
                .tableName(TABLE)
                .key(Map.of(KeyScheme.PK, s(pk), KeyScheme.SK, s(sk)))
                .updateExpression("SET #d = :d, #q = :q, #t = if_not_exists(#t, :t)")
                .expressionAttributeNames(Map.of("#d", "d", "#q", "dq", "#t", "ttl"))
                .expressionAttributeValues(Map.of(
                        ":d",
                        AttributeValue.fromN("1795212000000"),
                        ":q",
                        s("2026-11-20T22#1"),
                        ":t",
                        AttributeValue.fromN("1798246800")))
                .build();
    }

    private static Map<String, AttributeValue> partial(String series, int blob) {
        return Map.of(
                KeyScheme.PK,
                s(KeyScheme.partialPk(series + "{}", HOUR)),
                KeyScheme.SK,
                s(KeyScheme.partialSk(HOUR, "shardId-000000000000", "1", 1)),
                "s",
                AttributeValue.fromB(SdkBytes.fromByteArray(new byte[blob])));
    }

    private static WriteRequest put(Map<String, AttributeValue> item) {
        return WriteRequest.builder().putRequest(p -> p.item(item)).build();
    }

    private static ConsumedCapacity cc(double total, double index) {
        ConsumedCapacity.Builder b = ConsumedCapacity.builder()
                .tableName(TABLE)
                .capacityUnits(total)
                .table(Capacity.builder().capacityUnits(total - index).build());
        if (index > 0) {
            b.globalSecondaryIndexes(
                    Map.of("due", Capacity.builder().capacityUnits(index).build()));
        }
        return b.build();
    }

    private static AttributeValue s(String v) {
        return AttributeValue.fromS(v);
    }
}
