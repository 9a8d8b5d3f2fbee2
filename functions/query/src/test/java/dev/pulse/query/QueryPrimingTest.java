package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;

import dev.pulse.config.PulseConfig;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QueryPrimingTest {

    @Test
    void beforeCheckpoint_whenRun_answersEveryRouteInMemoryWithoutCredentials() {
        QueryPriming priming = new QueryPriming(PulseConfig.fromEnvironment(Map.of("TABLE_NAME", "t", "DLQ_URL", "q")));

        priming.beforeCheckpoint(null);

        assertThat(priming.failures()).isZero();
        assertThat(priming.primedPaths()).isEqualTo(1 + 2 + 1 /* period buckets */ + QueryPriming.ROUNDS * QueryPriming.events(java.time.Instant.now()).size());
        assertThat(priming.lastRequests()).containsKey("Query").doesNotContainKeys("PutItem", "UpdateItem", "BatchWriteItem");
        assertThat(priming.emfBytes()).isPositive();
    }
}
