package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.query.QueryMetric;
import dev.pulse.query.QueryParser;
import dev.pulse.query.QueryResult;
import dev.pulse.query.QueryService;
import dev.pulse.query.RollupCache;
import dev.pulse.retry.Deadline;
import dev.pulse.testing.Emulators;
import dev.pulse.testing.KinesisRecords;
import dev.pulse.testing.Pipeline;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Canaries written through the real ingest path and read back through the query service: the verdict
 * catches an injected loss, an injected duplicate, and both at once (same count, wrong sum).
 */
@ExtendWith(Emulators.class)
class CanaryVerificationIT {

    private static final Instant NOW = Instant.parse("2026-11-21T12:20:00Z");
    private long sequence;

    private CanaryVerifier.Verdict run(String runId, int drop, int duplicate) throws Exception {
        try (Pipeline p = new Pipeline("pulse-canary", NOW, Duration.ofDays(14))) {
            List<Long> sendTimes = new ArrayList<>();
            List<KinesisEvent.KinesisEventRecord> records = new ArrayList<>();
            for (int k = 0; k < 20; k++) {
                long sent = NOW.toEpochMilli() - 120_000 + k * 1000L;
                sendTimes.add(sent);
                ReplayRecord canary = CanaryVerifier.record(runId, k, sent);
                if (k != drop) {
                    records.add(KinesisRecords.record("shardId-000000000000", sequence++, canary.partitionKey(), canary.data(), sent));
                }
                if (k == duplicate) { // a second copy: a new record, as a producer retry would create
                    records.add(KinesisRecords.record("shardId-000000000000", sequence++, canary.partitionKey(), canary.data(), sent));
                }
            }
            p.ingest(records);
            QueryService service = new QueryService(Emulators.dynamo().asyncClient(), p.table, 8, 300_000L,
                    new RollupCache(10_000, 300_000L), p.clock());
            CanaryVerifier.Reader reader = (id, from, to) -> {
                try {
                    long start = Math.floorDiv(from, 60_000L) * 60_000L;
                    QueryResult r = service.query(QueryParser.parse("{\"series\":[{\"name\":\"" + CanaryVerifier.SERIES_NAME
                            + "\",\"dims\":{\"run\":\"" + id + "\"}}],\"start\":" + start + ",\"end\":" + to
                            + ",\"period\":60,\"stats\":[\"count\",\"sum\"]}"), Deadline.inMillis(5_000),
                            new InvocationMetrics<>(QueryMetric.class));
                    long count = 0;
                    double sum = 0;
                    for (int i = 0; i < r.timestamps().size(); i++) {
                        Double c = r.series().get(0).values().get("count").get(i);
                        if (c != null) {
                            count += c.longValue();
                            sum += r.series().get(0).values().get("sum").get(i);
                        }
                    }
                    return new CanaryVerifier.Observed(count, sum);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            return CanaryVerifier.verify(runId, sendTimes, reader, Deadline.inMillis(1_000), 100);
        }
    }

    @Test
    void verify_whenEveryCanaryArrivedOnce_isOk() throws Exception {
        CanaryVerifier.Verdict v = run("clean", -1, -1);

        assertThat(v.ok()).isTrue();
        assertThat(v.observed()).isEqualTo(20);
    }

    @Test
    void verify_whenOneCanaryLost_reportsTheLoss() throws Exception {
        CanaryVerifier.Verdict v = run("loss", 7, -1);

        assertThat(v.ok()).isFalse();
        assertThat(v.lost()).isEqualTo(1);
        assertThat(v.duplicated()).isZero();
    }

    @Test
    void verify_whenOneCanaryDuplicated_reportsTheDuplicate() throws Exception {
        CanaryVerifier.Verdict v = run("dup", -1, 3);

        assertThat(v.ok()).isFalse();
        assertThat(v.duplicated()).isEqualTo(1);
        assertThat(v.lost()).isZero();
    }

    @Test
    void verify_whenALossHidesBehindADuplicate_stillFailsOnTheSum() throws Exception {
        CanaryVerifier.Verdict v = run("both", 5, 12);

        assertThat(v.observed()).isEqualTo(20);
        assertThat(v.consistent()).isFalse();
        assertThat(v.ok()).isFalse();
    }
}
