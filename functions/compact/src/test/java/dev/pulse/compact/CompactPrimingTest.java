package dev.pulse.compact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CompactPrimingTest {

    @Test
    void beforeCheckpoint_whenRun_runsBuildRunsInMemoryWithoutCredentials() {
        CompactPriming priming = new CompactPriming(PulseConfig.fromEnvironment(Map.of("TABLE_NAME", "t", "DLQ_URL", "q")));

        priming.beforeCheckpoint(null);

        assertThat(priming.failures()).isZero();
        assertThat(priming.primedPaths()).isEqualTo(1 + 4 + CompactPriming.ROUNDS);
        assertThat(priming.lastRequests()).containsKey("Query");
        assertThat(priming.emfBytes()).isPositive();
    }
}
