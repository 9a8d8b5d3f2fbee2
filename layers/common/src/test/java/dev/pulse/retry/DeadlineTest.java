package dev.pulse.retry;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DeadlineTest {

    @Test
    void remainingMillis_whenFarInFuture_isCloseToRequested() {
        Deadline d = Deadline.inMillis(60_000);

        assertThat(d.remainingMillis()).isBetween(59_000L, 60_000L);
        assertThat(d.expired()).isFalse();
    }

    @ParameterizedTest(name = "{0} ms")
    @ValueSource(longs = {0, -1, -10_000})
    void expired_whenZeroOrNegative_isTrue(long millis) {
        assertThat(Deadline.inMillis(millis).expired()).isTrue();
    }

    @Test
    void expired_whenTimePasses_becomesTrue() throws InterruptedException {
        Deadline d = Deadline.inMillis(20);

        Thread.sleep(40);

        assertThat(d.expired()).isTrue();
        assertThat(d.remainingMillis()).isNegative();
    }
}
