package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.pulse.bench.CostModel.In;
import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CostModelTest {

    private static final double MONTH = 730 * 3600;

    /** The capacity model's shape: 10 datapoints a series-minute in one 1,000-byte record. */
    static CostModel.Inputs inputs() {
        Map<In, Double> v = new EnumMap<>(In.class);
        for (In in : In.values()) {
            v.put(in, 0.0);
        }
        v.put(In.DP_PER_SERIES_MINUTE, 10.0);
        v.put(In.DP_PER_RECORD, 10.0);
        v.put(In.RECORD_BYTES, 1000.0);
        v.put(In.PUT_UNITS_PER_RECORD, 1.0);
        v.put(In.ONDEMAND_BYTES_PER_RECORD, 1024.0);
        v.put(In.BATCH_SIZE, 500.0);
        v.put(In.BATCHING_WINDOW_S, 1.0);
        v.put(In.INGEST_MS_PER_INVOCATION, 10.0);
        v.put(In.INGEST_MS_PER_RECORD, 0.1);
        v.put(In.INGEST_MEMORY_MB, 1024.0);
        v.put(In.PARTIAL_WRU_PER_DP, 0.1);
        v.put(In.HOUR_MARK_WRU_PER_SERIES_HOUR, 2.0);
        v.put(In.DAY_MARK_WRU_PER_SERIES_DAY, 2.0);
        v.put(In.HOURLY_RRU_PER_SERIES_HOUR, 6.0);
        v.put(In.HOURLY_WRU_PER_SERIES_HOUR, 4.0);
        v.put(In.DAILY_RRU_PER_SERIES_DAY, 18.0);
        v.put(In.DAILY_WRU_PER_SERIES_DAY, 6.0);
        v.put(In.QUEUE_SCAN_RRU_PER_RUN, 800.0);
        v.put(In.BUILD_RUNS_PER_HOUR, 12.0);
        v.put(In.COMPACT_MEMORY_MB, 1024.0);
        v.put(In.QUERY_MEMORY_MB, 1024.0);
        v.put(In.DASHBOARD_QUERIES_PER_HOUR, 60.0);
        v.put(In.DASHBOARD_SERIES, 100.0);
        v.put(In.DASHBOARD_HOURS, 24.0);
        v.put(In.PARTIAL_BYTES_PER_SERIES_HOUR, 21_000.0);
        v.put(In.HOURLY_BYTES_PER_SERIES_HOUR, 3_000.0);
        v.put(In.DAILY_BYTES_PER_SERIES_DAY, 5_000.0);
        v.put(In.PARTIAL_TTL_DAYS, 16.0);
        v.put(In.HOURLY_TTL_DAYS, 35.0);
        v.put(In.DAILY_TTL_DAYS, 3650.0);
        return new CostModel.Inputs(v);
    }

    private final CostModel model = new CostModel(inputs(), Prices.defaults(), 12);

    @Test
    void bill_whenPartials_areWriteUnitsADatapointAtTheOnDemandAndProvisionedPrices() {
        CostModel.Line partials = model.bill(10_000).line("partials");

        assertThat(partials.units()).isCloseTo(1_000, within(1e-9)); // WRU/s
        assertThat(partials.onDemand()).isCloseTo(1_000 * MONTH / 1e6 * 0.625, within(1e-6));
        assertThat(partials.provisioned()).isCloseTo(1_000 / 0.7 * 730 * 0.00065, within(1e-6));
    }

    @Test
    void bill_whenSeriesTerms_scaleWithActiveSeries() {
        CostModel.Bill b = model.bill(1_000);

        assertThat(b.series()).isEqualTo(6_000);
        assertThat(b.line("marks").units()).isCloseTo(6_000 * 2.0 / 3600 + 6_000 * 2.0 / 86400, within(1e-9));
        assertThat(b.line("hourly builds, reads").units()).isCloseTo(6_000 * 6.0 / 3600, within(1e-9));
        assertThat(b.line("daily builds, writes").units()).isCloseTo(6_000 * 6.0 / 86400, within(1e-9));
        assertThat(b.line("queue scans").units()).isCloseTo(800 * 12 / 3600.0, within(1e-9));
    }

    @Test
    void bill_whenKinesisAndIngest_sizeShardsAndBatchesAsTheOldScriptDid() {
        // 100,000 datapoints/s: 10,000 records/s of 1 KB, 13 shards at 80%; 769 records a shard-second: batches of 500.
        CostModel.Bill b = model.bill(100_000);

        assertThat(model.shards(100_000)).isEqualTo(13);
        assertThat(b.line("Kinesis (provisioned stream)").onDemand())
                .isCloseTo(13 * 0.015 * 730 + 10_000 * MONTH / 1e6 * 0.014, within(1e-6));
        double invocations = 10_000 / 500.0;
        double gbS = (invocations * 10 + 10_000 * 0.1) / 1000;
        assertThat(b.line("IngestFunction").onDemand())
                .isCloseTo(gbS * MONTH * 0.0000133334 + invocations * MONTH / 1e6 * 0.20, within(1e-6));
    }

    @Test
    void bill_whenStorageAtMonthTwelve_keepsEachItemTypeForItsTtl() {
        CostModel.Bill b = model.bill(1_000);
        double perGbMonth = 0.25 + 0.20;

        assertThat(b.line("storage: partials").units()).isCloseTo(6_000 * 21_000.0 * 24 * 16 / 1e9, within(1e-9));
        assertThat(b.line("storage: hourly rollups").units()).isCloseTo(6_000 * 3_000.0 * 24 * 35 / 1e9, within(1e-9));
        assertThat(b.line("storage: daily rollups").units()).isCloseTo(6_000 * 5_000.0 * 365 / 1e9, within(1e-9));
        assertThat(b.line("storage: daily rollups").onDemand()).isCloseTo(6_000 * 5_000.0 * 365 / 1e9 * perGbMonth, within(1e-9));
    }

    @Test
    void bill_whenAlternatives_priceTheSameSeriesAndDatapoints() {
        CostModel.Bill b = model.bill(1_000);

        // 6,000 metrics at $0.30, 2.628 billion datapoints x 100 B of EMF at $0.50/GB, the dashboard's 100 metrics a minute.
        double cw = 6_000 * 0.30 + 2.628e9 * 100 / 1e9 * 0.50 + 100 * 60 * 730 / 1000.0 * 0.01;
        assertThat(b.cloudWatch()).isCloseTo(cw, within(1e-6));
        assertThat(b.perMillion(b.cloudWatch())).isCloseTo(cw / 2628, within(1e-9));
        assertThat(b.prometheus()).isGreaterThan(Prices.defaults().ampIngestMonth(2.628e9));
    }

    @Test
    void totals_whenSummed_areTheLinesAndPerMillionDividesByTheMonthsDatapoints() {
        CostModel.Bill b = model.bill(10_000);

        assertThat(b.onDemand()).isCloseTo(b.lines().stream().mapToDouble(CostModel.Line::onDemand).sum(), within(1e-9));
        assertThat(b.perMillionOnDemand()).isCloseTo(b.onDemand() / 26_280, within(1e-9));
        assertThat(b.provisioned()).isLessThan(b.onDemand());
    }

    @Test
    void before_whenTheOldRates_reproducesTheCheckedDocument() {
        // docs/capacity.md at 341b57c: DynamoDB on-demand $2,989 at 1k datapoints/s, total $3,031 ($1.15 a million).
        Map<String, Double> b = CostModel.before(1_000);
        double ddb = b.get("partials") + b.get("hourly builds, writes") + b.get("daily builds, writes")
                + b.get("hourly builds, reads") + b.get("daily builds, reads");

        assertThat(ddb).isCloseTo(2_989.35, within(0.01));
        assertThat(b.get("total in that model (no storage, no queries)") / 2_628).isCloseTo(1.153, within(0.001));
        assertThat(CostModel.before(100_000).get("partials")).isCloseTo(100 * b.get("partials"), within(1e-6));
        assertThat(CostModel.before(5_000)).isEmpty();
    }

    @Test
    void inputs_whenOneIsMissing_refuseNamingIt() {
        Map<String, Double> named = new java.util.HashMap<>(inputs().byKey());
        named.remove("partialWruPerDp");

        assertThatThrownBy(() -> CostModel.Inputs.fromKeys(named)).hasMessageContaining("partialWruPerDp");
        assertThat(CostModel.Inputs.fromKeys(inputs().byKey())).isEqualTo(inputs());
    }
}
