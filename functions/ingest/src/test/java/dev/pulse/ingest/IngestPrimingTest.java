package dev.pulse.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestPrimingTest {

    private static final PulseConfig CONFIG = PulseConfig.fromEnvironment(Map.of("TABLE_NAME", "t", "DLQ_URL", "q"));

    @Test
    void beforeCheckpoint_whenRun_ingestsEveryRoundInMemoryWithoutCredentials() {
        IngestPriming priming = new IngestPriming(CONFIG);

        priming.beforeCheckpoint(null);

        // No AWS credentials in this JVM: a call through the default provider chain would have failed the priming.
        assertThat(priming.failures()).isZero();
        assertThat(priming.primedPaths()).isEqualTo(1 + 2 + IngestPriming.ROUNDS);
        assertThat(priming.lastRequests()).containsKeys("BatchWriteItem", "UpdateItem").doesNotContainKey("SendMessage");
        assertThat(priming.emfBytes()).isPositive();
    }

    @Test
    void event_whenDecoded_hasOneRecordPerInputFormatAboveThePreviousRound() throws Exception {
        var first = IngestPriming.event(0, 1_000L).getRecords();
        var second = IngestPriming.event(1, 1_000L).getRecords();

        assertThat(first).hasSize(7);
        assertThat(new java.math.BigInteger(second.get(0).getKinesis().getSequenceNumber()))
                .isGreaterThan(new java.math.BigInteger(first.get(6).getKinesis().getSequenceNumber()));
    }

    @Test
    void afterRestore_whenRestoredTwice_countsEachRestore() {
        IngestPriming priming = new IngestPriming(CONFIG);

        priming.afterRestore(null);
        priming.afterRestore(null);

        assertThat(priming.restores()).isEqualTo(2);
    }
}
