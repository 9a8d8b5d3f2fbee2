package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PricesTest {

    private final Prices p = Prices.defaults();

    @ParameterizedTest
    @CsvSource({"0, 0", "6000, 1800", "10000, 3000", "60000, 8000", "600000, 44500", "2000000, 84500"})
    void cloudWatchMetricsMonth_whenMetrics_isTieredPerMetric(double metrics, double dollars) {
        // $0.30 the first 10,000, $0.10 the next 240,000, $0.05 the next 750,000, $0.02 beyond (issue 12's figures).
        assertThat(p.cloudWatchMetricsMonth(metrics)).isCloseTo(dollars, within(1e-6));
    }

    @Test
    void ampIngestMonth_whenAcrossTiers_pricesEachTierItsOwn() {
        // 1,000 datapoints/s for 730 h: 2.628 billion samples; the first 2 billion at $0.90 per 10 million.
        assertThat(p.ampIngestMonth(2.628e9)).isCloseTo(180 + 0.628e9 * 0.35 / 1e7, within(1e-6));
        // past 252 billion: $0.16 per 10 million
        assertThat(p.ampIngestMonth(262.8e9)).isCloseTo(180 + 8750 + 10.8e9 * 0.16 / 1e7, within(1e-6));
    }

    @Test
    void tiered_whenQuantityInFirstTier_usesOnlyItsPrice() {
        assertThat(Prices.tiered(5, new double[] {10}, new double[] {2, 1})).isEqualTo(10);
        assertThat(Prices.tiered(15, new double[] {10}, new double[] {2, 1})).isEqualTo(25);
    }

    @Test
    void parse_whenOverrides_replacesOnlyThoseAndReportsThem() {
        Prices q = Prices.parse("ddb-million-wru=0.5, logs-gb = 0.25");

        assertThat(q.get("ddb-million-wru")).isEqualTo(0.5);
        assertThat(q.get("logs-gb")).isEqualTo(0.25);
        assertThat(q.get("ddb-million-rru")).isEqualTo(0.125);
        assertThat(q.overrides()).isEqualTo("ddb-million-wru=0.5,logs-gb=0.25");
        assertThat(Prices.parse("  ").overrides()).isEmpty();
    }

    @Test
    void defaults_whenRead_areThePricesCapacityPyUsed() {
        assertThat(p.get("ddb-million-wru")).isEqualTo(0.625);
        assertThat(p.get("ddb-million-rru")).isEqualTo(0.125);
        assertThat(p.get("ddb-gb-month")).isEqualTo(0.25);
        assertThat(p.get("lambda-gb-s")).isEqualTo(0.0000133334);
        assertThat(p.get("shard-hour")).isEqualTo(0.015);
        assertThat(p.get("put-payload-million")).isEqualTo(0.014);
        assertThat(p.get("logs-gb")).isEqualTo(0.50);
    }

    @Test
    void parse_whenUnknownNameOrBadValue_refusesNamingIt() {
        assertThatThrownBy(() -> Prices.parse("nosuch=1")).hasMessageContaining("no price parameter 'nosuch'");
        assertThatThrownBy(() -> Prices.parse("logs-gb=cheap")).hasMessageContaining("logs-gb must be a number");
        assertThatThrownBy(() -> Prices.parse("logs-gb=-1")).hasMessageContaining("logs-gb must be a number >= 0");
        assertThatThrownBy(() -> Prices.parse("logs-gb")).hasMessageContaining("expected NAME=VALUE");
    }
}
