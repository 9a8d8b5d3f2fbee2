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
import dev.pulse.store.RedriveWindow;
import dev.pulse.store.SeriesCatalog;
import dev.pulse.store.ShardCheckpoints;
import dev.pulse.store.StoreException;
import dev.pulse.store.SupersededException;
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
 * Turns one Kinesis batch into stored minute partials, exactly once whatever the delivery (docs/design.md,
 * "Exactly once"):
 * <ol>
 *   <li>The attempt claims its shard ({@link ShardCheckpoints#claim}): a new fencing generation, and the committed
 *       position. Records at or below that position are already stored and are skipped.</li>
 *   <li>It sets the build marks of the hours and days it touches ({@link BuildMarks}), then puts its partials,
 *       each keyed by its first contributing record and its generation: readers sum, per (minute, shard, first
 *       record), only the newest generation ({@link dev.pulse.store.LatestPartials}).</li>
 *   <li>It sends its poison records to the DLQ, then commits the batch's highest record as the shard's position,
 *       on condition that the generation is still its own.</li>
 * </ol>
 * Any failure fails the <em>whole</em> batch by reporting its first record (or, in a redelivery that starts below
 * the committed position, its first record above it), so Lambda retries (or bisects) from it and every partial
 * the failed attempt wrote is outvoted by the attempts that store those records.
 * Poison records never fail a batch.
 *
 * <p>{@link #redrive} stores a batch that Lambda discarded, read back from the stream with its original
 * sequence numbers: below the committed position, overwriting what the discarded attempts left.
 */
public final class IngestService {

    private static final Logger LOG = LoggerFactory.getLogger(IngestService.class);
    static final String SOURCE = "IngestFunction";
    static final String NO_ARRIVAL = "record without approximateArrivalTimestamp: its timestamps cannot be checked"
            + " against a fixed window, so one attempt could accept it and another refuse it";

    private final RecordDecoder decoder;
    private final DynamoDbStore store;
    private final SeriesCatalog catalog;
    private final DeadLetterQueue deadLetters;
    private final BuildMarks marks;
    private final MarkMemory markMemory;
    private final ShardCheckpoints checkpoints;
    private final long partialTtlSeconds;
    private final long hourlyTtlSeconds;
    private final long dailyTtlSeconds;
    private final Clock clock;
    /** Set once by the wiring, before the first batch. */
    private RedriveWindow redriveWindow;

    public IngestService(RecordDecoder decoder, DynamoDbStore store, SeriesCatalog catalog, BuildMarks marks,
            MarkMemory markMemory, ShardCheckpoints checkpoints, DeadLetterQueue deadLetters, long partialTtlSeconds,
            long hourlyTtlSeconds, long dailyTtlSeconds, Clock clock) {
        this.decoder = decoder;
        this.store = store;
        this.catalog = catalog;
        this.marks = marks;
        this.markMemory = markMemory;
        this.checkpoints = checkpoints;
        this.deadLetters = deadLetters;
        this.partialTtlSeconds = partialTtlSeconds;
        this.hourlyTtlSeconds = hourlyTtlSeconds;
        this.dailyTtlSeconds = dailyTtlSeconds;
        this.clock = clock;
    }

    /** Ingests a batch delivered by the event source mapping; never throws for bad data. */
    public IngestResult ingest(List<KinesisEvent.KinesisEventRecord> records, Deadline deadline,
            InvocationMetrics<IngestMetric> metrics) {
        return run(records, false, deadline, metrics);
    }

    /**
     * Stores a discarded batch again, read back from the stream with its original sequence numbers and
     * arrival times, as one batch starting at its first record. Its partials get the same keys as the discarded
     * attempts' (the same first contributors) and replace them. It is refused (a failed result, nothing written)
     * unless the shard's committed position has passed the batch's last record: before that, live delivery may
     * still store these records itself.
     */
    public IngestResult redrive(List<KinesisEvent.KinesisEventRecord> records, Deadline deadline,
            InvocationMetrics<IngestMetric> metrics) {
        // Records too old for their hours to be rebuilt: refused whole, before anything is read or written.
        String late = redriveWindow == null || records.isEmpty() ? null : redriveWindow.refusal(records, clock.millis());
        if (late != null) {
            metrics.increment(IngestMetric.BATCH_FAILURES);
            return new IngestResult(records.size(), 0, 0, 0, 0, 0, new WriteStats(0, 0, 0, 0, 0), firstSequence(records), late, 0);
        }
        return run(records, true, deadline, metrics);
    }

    /** Refuses redrives of records that arrived longer ago than {@code window} allows (none refused without one). */
    public IngestService redriveWindow(RedriveWindow window) {
        this.redriveWindow = window;
        return this;
    }

    private IngestResult run(List<KinesisEvent.KinesisEventRecord> records, boolean redrive, Deadline deadline,
            InvocationMetrics<IngestMetric> metrics) {
        long now = clock.millis();
        Tally t = new Tally(now);
        List<PoisonRecord> unkeyed = new ArrayList<>();
        Map<String, List<KinesisEvent.KinesisEventRecord>> byShard = new LinkedHashMap<>(2);
        for (KinesisEvent.KinesisEventRecord r : records) {
            KinesisEvent.Record k = r.getKinesis();
            if (k == null || k.getSequenceNumber() == null) {
                // Not something the event source mapping sends; kept out of the store, where it has no key.
                unkeyed.add(new PoisonRecord(SOURCE, shardId(r), k == null ? null : k.getSequenceNumber(),
                        k == null ? null : k.getPartitionKey(), now, "record without Kinesis data or sequence number",
                        new byte[0]));
                continue;
            }
            byShard.computeIfAbsent(ShardCheckpoints.key(streamName(r), shardId(r)), x -> new ArrayList<>()).add(r);
        }
        String failure = null;
        try {
            for (Map.Entry<String, List<KinesisEvent.KinesisEventRecord>> shard : byShard.entrySet()) {
                failure = ingestShard(shard.getKey(), shard.getValue(), redrive, unkeyed, t, deadline);
                unkeyed = List.of();
                if (failure != null) {
                    break;
                }
            }
            if (failure == null && !unkeyed.isEmpty()) {
                send(unkeyed, t, deadline);
            }
        } catch (DeadLetterException e) {
            failure = "dead-letter queue: " + e.getMessage() + (e.getCause() == null ? "" : " (" + e.getCause() + ")");
        }

        metrics.add(IngestMetric.RECORDS_IN, records.size());
        metrics.add(IngestMetric.DATAPOINTS_IN, t.datapoints);
        metrics.add(IngestMetric.SKIPPED_EVENTS, t.skipped);
        metrics.add(IngestMetric.ALREADY_STORED_RECORDS, t.alreadyStored);
        metrics.add(IngestMetric.POISON_RECORDS, t.poisonSent);
        metrics.set(IngestMetric.INGEST_LAG_MS, Math.max(0, now - t.oldestArrival));
        metrics.add(IngestMetric.MARKS_WRITTEN, t.marksWritten);
        metrics.add(IngestMetric.ITEMS_WRITTEN, t.stats.itemsWritten());
        metrics.add(IngestMetric.WRITE_RETRIES, t.stats.retries());
        metrics.add(IngestMetric.THROTTLES, t.stats.throttles());
        metrics.add(IngestMetric.UNPROCESSED_ITEMS, t.stats.unprocessedItems());
        if (t.poisonSent > 0) {
            // One line per batch, not per record: poison is visible without reading the queue.
            LOG.warn("{} poison record(s) sent to the dead-letter queue; first: {} {}: {}", t.poisonSent,
                    t.firstPoison.shardId(), t.firstPoison.sequenceNumber(), t.firstPoison.reason());
        }
        String failedSequence = null;
        if (failure != null && !records.isEmpty()) {
            // From the first record the committed position does not cover: the ones before it are stored, so Lambda
            // may checkpoint them, and its retry (or bisection, or discard) then starts where a redrive must start.
            failedSequence = byShard.size() == 1 && t.firstUncommitted != null ? t.firstUncommitted : firstSequence(records);
            metrics.increment(IngestMetric.BATCH_FAILURES);
            if (t.superseded) {
                metrics.increment(IngestMetric.SUPERSEDED_ATTEMPTS);
            }
        }
        return new IngestResult(records.size(), t.datapoints, t.poisonSent, t.skipped, t.partials, t.alreadyStored,
                t.stats, failedSequence, failure, Math.max(0, now - t.oldestArrival));
    }

    /** One shard's records (a mapping's batch is always one shard); returns the failure, or null. */
    private String ingestShard(String key, List<KinesisEvent.KinesisEventRecord> records, boolean redrive,
            List<PoisonRecord> unkeyed, Tally t, Deadline deadline) {
        // The highest, not the last: a hand-made batch out of shard order must not move the position backwards.
        String last = records.get(0).getKinesis().getSequenceNumber();
        for (KinesisEvent.KinesisEventRecord r : records) {
            if (ShardCheckpoints.compareSequences(r.getKinesis().getSequenceNumber(), last) > 0) {
                last = r.getKinesis().getSequenceNumber();
            }
        }
        ShardCheckpoints.Position position;
        try {
            position = (redrive ? checkpoints.read(key, deadline) : checkpoints.claim(key, deadline)).join();
        } catch (CompletionException e) {
            return storageFailure(e, t);
        }
        if (redrive && !position.covers(last)) {
            return "redrive refused: shard " + key + " has committed " + (position.committed() == null ? "nothing"
                    : position.committed()) + ", below the batch's last record " + last + "; live delivery may still"
                    + " store these records, so redrive once the shard has moved past them";
        }

        String shardId = shardId(records.get(0));
        BatchAggregator aggregator = new BatchAggregator(shardId);
        List<PoisonRecord> poison = new ArrayList<>(unkeyed);
        boolean anyNew = false;
        for (KinesisEvent.KinesisEventRecord r : records) {
            KinesisEvent.Record k = r.getKinesis();
            if (!redrive && position.covers(k.getSequenceNumber())) {
                t.alreadyStored++; // redelivered: stored (or sent to the DLQ) by a committed batch
                continue;
            }
            if (!anyNew && !redrive && position.committed() != null && t.firstUncommitted == null) {
                t.firstUncommitted = k.getSequenceNumber();
            }
            anyNew = true;
            byte[] data = bytes(k.getData());
            if (k.getApproximateArrivalTimestamp() == null) {
                poison.add(new PoisonRecord(SOURCE, shardId, k.getSequenceNumber(), k.getPartitionKey(), t.now,
                        NO_ARRIVAL, data));
                continue;
            }
            long arrival = k.getApproximateArrivalTimestamp().getTime();
            t.oldestArrival = Math.min(t.oldestArrival, arrival);
            List<RecordDecoder.Unit> units;
            try {
                // The window is centred on the arrival time, not the clock: every attempt at this batch must
                // accept exactly the same records, or a retry would key partials differently.
                units = decoder.decodeUnits(data, k.getPartitionKey(), arrival);
            } catch (DecodeException e) {
                // A KPL aggregate that cannot be split: no user record of it can be trusted.
                LOG.debug("poison record {} {}: {}", shardId, k.getSequenceNumber(), e.getMessage());
                poison.add(new PoisonRecord(SOURCE, shardId, k.getSequenceNumber(), k.getPartitionKey(), arrival,
                        e.getMessage(), data));
                continue;
            }
            for (RecordDecoder.Unit u : units) {
                // A user record of an aggregate is keyed by its sub-sequence too, so the slot names the user record
                // that first touched the (series, minute). The aggregate itself is stored all or nothing with its
                // batch: Lambda retries from a Kinesis record, never from inside one (docs/design.md, "KPL aggregation").
                String sequence = ShardCheckpoints.userRecordSequence(k.getSequenceNumber(), u.subSequence());
                Decoded d = u.decoded();
                if (d != null) {
                    aggregator.addRecord(sequence, d.datapoints());
                    t.skipped += d.skippedEvents();
                } else {
                    LOG.debug("poison record {} {}: {}", shardId, sequence, u.poisonReason());
                    poison.add(new PoisonRecord(SOURCE, shardId, sequence, u.partitionKey(), arrival,
                            u.poisonReason(), u.data()));
                }
            }
        }
        if (!anyNew) {
            send(poison, t, deadline); // only unkeyed poison can be left
            return null;
        }

        List<MinuteAggregate> partials = new ArrayList<>(aggregator.partials());
        t.partials += partials.size();
        t.datapoints += aggregator.datapoints();
        List<SeriesCatalog.CatalogEntry> newSeries = catalog.unseen(partials);
        List<Map<String, AttributeValue>> items = new ArrayList<>(partials.size() + newSeries.size());
        for (MinuteAggregate p : partials) {
            items.add(PartialItems.partial(p, partialTtlSeconds, position.generation()));
        }
        for (SeriesCatalog.CatalogEntry c : newSeries) {
            items.add(c.item());
        }
        List<BuildMarks.Mark> newMarks = markMemory.toWrite(BuildMarks.marksFor(partials, hourlyTtlSeconds, dailyTtlSeconds), t.now);
        try {
            // Marks first, partials after: a stored partial always has a mark at least as old (BuildMarks).
            marks.writeAll(newMarks, t.now, deadline).join();
            markMemory.remember(newMarks);
            t.marksWritten += newMarks.size();
            t.add(store.writeAll(items, deadline).join());
            catalog.markWritten(newSeries);
            // Only after the data is safe: a storage failure then retries the batch without re-sending poison (a
            // failed commit after it does re-send it; docs/design.md, "Poison records").
            send(poison, t, deadline);
            if (!redrive) {
                checkpoints.commit(position, last, t.now, deadline).join();
            }
            return null;
        } catch (CompletionException e) {
            return storageFailure(e, t);
        }
    }

    private void send(List<PoisonRecord> poison, Tally t, Deadline deadline) {
        if (poison.isEmpty()) {
            return;
        }
        deadLetters.sendAll(poison, deadline);
        t.poisonSent += poison.size();
        if (t.firstPoison == null) {
            t.firstPoison = poison.get(0);
        }
    }

    private static String storageFailure(CompletionException e, Tally t) {
        Throwable cause = e.getCause();
        if (cause instanceof SupersededException s) {
            t.superseded = true;
            return "superseded: " + s.getMessage();
        }
        if (cause instanceof StoreException se) {
            t.add(se.stats());
            return "storage: " + se.getMessage();
        }
        throw e;
    }

    /** What the shards of one invocation did. */
    private static final class Tally {
        final long now;
        long oldestArrival;
        long datapoints;
        long skipped;
        long alreadyStored;
        int partials;
        int poisonSent;
        int marksWritten;
        boolean superseded;
        PoisonRecord firstPoison;
        /** In a batch that starts below the committed position, its first record above it. */
        String firstUncommitted;
        WriteStats stats = new WriteStats(0, 0, 0, 0, 0);

        Tally(long now) {
            this.now = now;
            this.oldestArrival = now;
        }

        void add(WriteStats s) {
            stats = new WriteStats(stats.itemsWritten() + s.itemsWritten(), stats.retries() + s.retries(),
                    stats.throttles() + s.throttles(), stats.unprocessedItems() + s.unprocessedItems(),
                    stats.requests() + s.requests());
        }
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

    /** {@code arn:aws:kinesis:us-east-1:123456789012:stream/pulse-stream} -> {@code pulse-stream}. */
    static String streamName(KinesisEvent.KinesisEventRecord r) {
        String arn = r.getEventSourceARN();
        if (arn == null) {
            return null;
        }
        int slash = arn.indexOf(":stream/");
        return slash < 0 ? arn : arn.substring(slash + ":stream/".length());
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
