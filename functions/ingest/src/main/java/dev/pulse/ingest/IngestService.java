package dev.pulse.ingest;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.MinuteAggregate;
import dev.pulse.codec.DecodeException;
import dev.pulse.codec.Decoded;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.dlq.DeadLetterException;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.dlq.PoisonRecord;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.BuildMarks;
import dev.pulse.store.DynamoDbStore;
import dev.pulse.store.MarkMemory;
import dev.pulse.store.PartialItems;
import dev.pulse.store.SeriesCatalog;
import dev.pulse.store.StoreException;
import dev.pulse.store.WriteStats;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns one Kinesis batch into stored minute partials.
 *
 * <p>Poison records go to the dead-letter queue and never fail the batch. Any storage or dead-letter
 * failure that outlives the retries fails the <em>whole</em> batch by reporting its first record: Lambda
 * then retries (or bisects) from that record, and because every partial is keyed by its first contributing
 * record, the retry overwrites whatever the failed attempt wrote. A partial checkpoint (reporting the first
 * record whose items failed) would instead let a later attempt re-aggregate part of a minute under a
 * different first record and count it twice. docs/design.md has the full argument.
 *
 * <p>Before any partial is written, the batch sets the build marks of the hours and days it touches
 * ({@link BuildMarks}): the rollup builder then knows which closed periods to build, and the query knows a rollup
 * without a mark holds everything stored for its period.
 */
public final class IngestService {

    private static final Logger LOG = LoggerFactory.getLogger(IngestService.class);
    static final String SOURCE = "IngestFunction";

    private final RecordDecoder decoder;
    private final DynamoDbStore store;
    private final SeriesCatalog catalog;
    private final DeadLetterQueue deadLetters;
    private final BuildMarks marks;
    private final MarkMemory markMemory;
    private final long partialTtlSeconds;
    private final long hourlyTtlSeconds;
    private final long dailyTtlSeconds;
    private final Clock clock;

    public IngestService(RecordDecoder decoder, DynamoDbStore store, SeriesCatalog catalog, BuildMarks marks,
            MarkMemory markMemory, DeadLetterQueue deadLetters, long partialTtlSeconds, long hourlyTtlSeconds,
            long dailyTtlSeconds, Clock clock) {
        this.decoder = decoder;
        this.store = store;
        this.catalog = catalog;
        this.marks = marks;
        this.markMemory = markMemory;
        this.deadLetters = deadLetters;
        this.partialTtlSeconds = partialTtlSeconds;
        this.hourlyTtlSeconds = hourlyTtlSeconds;
        this.dailyTtlSeconds = dailyTtlSeconds;
        this.clock = clock;
    }

    /** Ingests the batch, records what happened in {@code metrics}, and never throws for bad data. */
    public IngestResult ingest(List<KinesisEvent.KinesisEventRecord> records, Deadline deadline,
            InvocationMetrics<IngestMetric> metrics) {
        long now = clock.millis();
        long oldestArrival = now;
        Map<String, BatchAggregator> byShard = new LinkedHashMap<>(2);
        List<PoisonRecord> poison = new ArrayList<>();
        long skipped = 0;
        for (KinesisEvent.KinesisEventRecord r : records) {
            KinesisEvent.Record k = r.getKinesis();
            String shardId = shardId(r);
            if (k == null || k.getSequenceNumber() == null) {
                // Not something the event source mapping sends; kept out of the store, where it has no key.
                poison.add(new PoisonRecord(SOURCE, shardId, k == null ? null : k.getSequenceNumber(),
                        k == null ? null : k.getPartitionKey(), now, "record without Kinesis data or sequence number",
                        new byte[0]));
                continue;
            }
            byte[] data = bytes(k.getData());
            long arrival = k.getApproximateArrivalTimestamp() == null ? now : k.getApproximateArrivalTimestamp().getTime();
            oldestArrival = Math.min(oldestArrival, arrival);
            try {
                // The window is centred on the arrival time, not the clock: every attempt at this batch must
                // accept exactly the same records, or a retry would key partials differently.
                Decoded d = decoder.decode(data, arrival);
                byShard.computeIfAbsent(shardId, BatchAggregator::new).addRecord(k.getSequenceNumber(), d.datapoints());
                skipped += d.skippedEvents();
            } catch (DecodeException e) {
                LOG.debug("poison record {} {}: {}", shardId, k.getSequenceNumber(), e.getMessage());
                poison.add(new PoisonRecord(SOURCE, shardId, k.getSequenceNumber(), k.getPartitionKey(), arrival,
                        e.getMessage(), data));
            }
        }

        List<MinuteAggregate> partials = new ArrayList<>();
        long datapoints = 0;
        for (BatchAggregator a : byShard.values()) {
            partials.addAll(a.partials());
            datapoints += a.datapoints();
        }
        List<SeriesCatalog.CatalogEntry> newSeries = catalog.unseen(partials);
        List<Map<String, AttributeValue>> items = new ArrayList<>(partials.size() + newSeries.size());
        for (MinuteAggregate p : partials) {
            items.add(PartialItems.partial(p, partialTtlSeconds));
        }
        for (SeriesCatalog.CatalogEntry c : newSeries) {
            items.add(c.item());
        }

        metrics.add(IngestMetric.RECORDS_IN, records.size());
        metrics.add(IngestMetric.DATAPOINTS_IN, datapoints);
        metrics.add(IngestMetric.SKIPPED_EVENTS, skipped);
        metrics.set(IngestMetric.INGEST_LAG_MS, Math.max(0, now - oldestArrival));

        List<BuildMarks.Mark> newMarks = markMemory.toWrite(BuildMarks.marksFor(partials, hourlyTtlSeconds, dailyTtlSeconds), now);
        WriteStats stats = new WriteStats(0, 0, 0, 0, 0);
        String failure = null;
        try {
            // Marks first, partials after: a stored partial always has a mark at least as old (BuildMarks).
            marks.writeAll(newMarks, now, deadline).join();
            markMemory.remember(newMarks);
            metrics.add(IngestMetric.MARKS_WRITTEN, newMarks.size());
            stats = store.writeAll(items, deadline).join();
            catalog.markWritten(newSeries);
            // Only after the data is safe: a storage failure then retries the batch without re-sending poison.
            deadLetters.sendAll(poison, deadline);
            metrics.add(IngestMetric.POISON_RECORDS, poison.size());
        } catch (CompletionException e) {
            StoreException se = e.getCause() instanceof StoreException s ? s : null;
            if (se == null) {
                throw e;
            }
            stats = se.stats();
            failure = "storage: " + se.getMessage();
        } catch (DeadLetterException e) {
            failure = "dead-letter queue: " + e.getMessage() + (e.getCause() == null ? "" : " (" + e.getCause() + ")");
        }
        metrics.add(IngestMetric.ITEMS_WRITTEN, stats.itemsWritten());
        metrics.add(IngestMetric.WRITE_RETRIES, stats.retries());
        metrics.add(IngestMetric.THROTTLES, stats.throttles());
        metrics.add(IngestMetric.UNPROCESSED_ITEMS, stats.unprocessedItems());

        String failedSequence = null;
        if (failure != null && !records.isEmpty()) {
            failedSequence = firstSequence(records);
            metrics.increment(IngestMetric.BATCH_FAILURES);
        }
        return new IngestResult(records.size(), datapoints, poison.size(), skipped, partials.size(), stats,
                failedSequence, failure, Math.max(0, now - oldestArrival));
    }

    /** The batch's first record, as Lambda needs it to retry (or bisect) the whole batch. */
    private static String firstSequence(List<KinesisEvent.KinesisEventRecord> records) {
        KinesisEvent.Record first = records.get(0).getKinesis();
        return first == null ? null : first.getSequenceNumber();
    }

    /** {@code shardId-000000000001:4959...} -> {@code shardId-000000000001}. */
    static String shardId(KinesisEvent.KinesisEventRecord r) {
        String id = r.getEventID();
        if (id == null) {
            return "unknown";
        }
        int colon = id.indexOf(':');
        return colon < 0 ? id : id.substring(0, colon);
    }

    private static byte[] bytes(ByteBuffer buf) {
        if (buf == null) {
            return new byte[0];
        }
        ByteBuffer b = buf.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
