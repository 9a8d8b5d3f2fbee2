package dev.pulse.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.amazonaws.services.lambda.runtime.events.DynamodbEvent;
import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.compact.CompactMetric;
import dev.pulse.compact.CompactResult;
import dev.pulse.compact.CompactService;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.ingest.IngestMetric;
import dev.pulse.ingest.IngestResult;
import dev.pulse.ingest.IngestService;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.model.DatapointValidator;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import dev.pulse.store.DynamoDbStore;
import dev.pulse.store.SeriesCatalog;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The write side of a stack on the emulators: a table with its stream, ingest into it, and compaction of
 * everything its stream holds, the way the two event source mappings would drive them.
 */
public final class Pipeline implements AutoCloseable {

    private static final AtomicInteger TABLES = new AtomicInteger();

    public final String table;
    private final Clock clock;
    private final IngestService ingest;
    private final CompactService compact;
    private final TableStream stream;
    /** Every stream record handed to the compactor so far, in order. */
    public final List<DynamodbEvent.DynamodbStreamRecord> streamRecords = new ArrayList<>();

    public Pipeline(String prefix, Instant now, Duration acceptPast) {
        this.table = prefix + "-" + TABLES.incrementAndGet();
        this.clock = Clock.fixed(now, ZoneOffset.UTC);
        Emulators.dynamo().createTable(table);
        String dlq = Emulators.sqs().createQueue(table + "-dlq");
        this.ingest = new IngestService(
                new RecordDecoder(new DatapointValidator(clock, acceptPast, Duration.ofHours(2))),
                new DynamoDbStore(Emulators.dynamo().asyncClient(), table, 8, new Backoff(5, 100)),
                new SeriesCatalog(10_000),
                new DeadLetterQueue(Emulators.sqs().client(), dlq, new Backoff(5, 100)),
                Duration.ofDays(35).toSeconds(), clock);
        this.compact = new CompactService(Emulators.dynamo().asyncClient(), table, 4,
                Duration.ofDays(400).toSeconds(), Duration.ofDays(3650).toSeconds(), clock);
        this.stream = TableStream.of(Emulators.dynamo(), table);
    }

    public Clock clock() {
        return clock;
    }

    /** Ingests {@code records} in batches of 100; every batch must succeed. */
    public void ingest(List<KinesisEvent.KinesisEventRecord> records) {
        for (int i = 0; i < records.size(); i += 100) {
            IngestResult r = ingest.ingest(records.subList(i, Math.min(records.size(), i + 100)), Deadline.inMillis(30_000),
                    new InvocationMetrics<>(IngestMetric.class));
            assertThat(r.failed()).as(r.failureReason()).isFalse();
        }
    }

    /** Feeds the table's stream to the compactor until it settles (rollup writes feed it again). */
    public void compactAll() {
        for (int round = 0; round < 20; round++) {
            List<DynamodbEvent.DynamodbStreamRecord> batch = stream.poll();
            if (batch.isEmpty()) {
                return;
            }
            streamRecords.addAll(batch);
            compact(batch);
        }
        throw new AssertionError("the stream did not settle within 20 rounds");
    }

    /** Hands {@code records} to the compactor in batches of 100; every batch must succeed. */
    public void compact(List<DynamodbEvent.DynamodbStreamRecord> records) {
        for (int i = 0; i < records.size(); i += 100) {
            CompactResult r = compact.compact(records.subList(i, Math.min(records.size(), i + 100)),
                    Deadline.inMillis(60_000), new InvocationMetrics<>(CompactMetric.class));
            assertThat(r.failed()).as(r.failureReason()).isFalse();
        }
    }


    @Override
    public void close() {
        stream.close();
    }
}
