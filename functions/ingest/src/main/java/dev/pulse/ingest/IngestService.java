/*
 * Copyright 2026 The Pulse authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package dev.pulse.ingest;

import com.amazonaws.services.lambda.runtime.events.KinesisEvent;
import dev.pulse.aggregate.BatchAggregator;
import dev.pulse.aggregate.Partial;
import dev.pulse.aggregate.Summary;
import dev.pulse.codec.DecodeException;
import dev.pulse.codec.Decoded;
import dev.pulse.codec.RecordDecoder;
import dev.pulse.dlq.DeadLetterException;
import dev.pulse.dlq.DeadLetterQueue;
import dev.pulse.dlq.PoisonRecord;
import dev.pulse.metrics.InvocationMetrics;
import dev.pulse.retry.Deadline;
import dev.pulse.store.codec.PartialItems;
import dev.pulse.store.codec.SeriesCatalog;
import dev.pulse.store.codec.SummaryAttributes;
import dev.pulse.store.schema.RedriveWindow;
import dev.pulse.store.write.CompactMarks;
import dev.pulse.store.write.DynamoDbStore;
import dev.pulse.store.write.MarkMemory;
import dev.pulse.store.write.ShardCheckpoints;
import dev.pulse.store.write.StoreException;
import dev.pulse.store.write.SupersededException;
import dev.pulse.store.write.WriteStats;
import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Turns one Kinesis batch into stored minute partials, exactly once whatever the delivery (docs/design.md,
 * "Exactly once"):
 * <ol>
 *   <li>The attempt claims its shard ({@link ShardCheckpoints#claim}): a new fencing generation, and the committed
 *       position. Records at or below that position are already stored and are skipped.</li>
 *   <li>It sets the compaction marks of the hours and days it touches ({@link CompactMarks}), then puts its partials,
 *       each keyed by its first contributing record and its generation: readers sum, per (minute, shard, first
 *       record), only the newest generation ({@link dev.pulse.store.read.LatestPartials}).</li>
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

    /** (series, minute) partials one batch may hold before it ends early: bounds what an attempt keeps in memory. */
    public static final int MAX_BATCH_PARTIALS = 50_000;
    /** Datapoints one batch may aggregate before it ends early: bounds an attempt's time. */
    public static final long MAX_BATCH_DATAPOINTS = 2_000_000;
    /** Time for taking an attempt's count back after its deadline passed (inside the handler's safety margin). */
    static final long RELEASE_MILLIS = 1_000;

    static final int MAX_REASON_CHARS = 400;
    private static final java.util.Set<String> THROTTLING = java.util.Set.of(
            "ProvisionedThroughputExceededException",
            "RequestLimitExceeded",
            "ThrottlingException",
            "TransactionConflictException");

    /** Decodes one record into its units; the production one is {@link RecordDecoder#decodeUnits}. */
    @FunctionalInterface
    public interface UnitDecoder {
        List<RecordDecoder.Unit> decodeUnits(byte[] data, String partitionKey, long referenceMillis)
                throws DecodeException;
    }

    private final UnitDecoder decoder;
    private final int maxBatchPartials;
    private final long maxBatchDatapoints;
    private final DynamoDbStore store;
    private final SeriesCatalog catalog;
    private final DeadLetterQueue deadLetters;
    private final CompactMarks marks;
    private final MarkMemory markMemory;
    private final ShardCheckpoints checkpoints;
    private final long partialTtlSeconds;
    private final long hourlyTtlSeconds;
    private final long dailyTtlSeconds;
    private final Clock clock;
    /** Set once by the wiring, before the first batch. */
    private RedriveWindow redriveWindow;

    public IngestService(
            RecordDecoder decoder,
            DynamoDbStore store,
            SeriesCatalog catalog,
            CompactMarks marks,
            MarkMemory markMemory,
            ShardCheckpoints checkpoints,
            DeadLetterQueue deadLetters,
            long partialTtlSeconds,
            long hourlyTtlSeconds,
            long dailyTtlSeconds,
            Clock clock) {
        this(
                decoder::decodeUnits,
                MAX_BATCH_PARTIALS,
                MAX_BATCH_DATAPOINTS,
                store,
                catalog,
                marks,
                markMemory,
                checkpoints,
                deadLetters,
                partialTtlSeconds,
                hourlyTtlSeconds,
                dailyTtlSeconds,
                clock);
    }

    /** With a given decoder (tests wrap the production one to inject faults) and per-batch limits. */
    public IngestService(
            UnitDecoder decoder,
            int maxBatchPartials,
            long maxBatchDatapoints,
            DynamoDbStore store,
            SeriesCatalog catalog,
            CompactMarks marks,
            MarkMemory markMemory,
            ShardCheckpoints checkpoints,
            DeadLetterQueue deadLetters,
            long partialTtlSeconds,
            long hourlyTtlSeconds,
            long dailyTtlSeconds,
            Clock clock) {
        this.decoder = decoder;
        this.maxBatchPartials = maxBatchPartials;
        this.maxBatchDatapoints = maxBatchDatapoints;
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
    public IngestResult ingest(
            List<KinesisEvent.KinesisEventRecord> records, Deadline deadline, InvocationMetrics<IngestMetric> metrics) {
        return run(records, false, deadline, metrics);
    }

    /**
     * Stores a discarded batch again, read back from the stream with its original sequence numbers and
     * arrival times, as one batch starting at its first record. Its partials get the same keys as the discarded
     * attempts' (the same first contributors) and replace them. It is refused (a failed result, nothing written)
     * unless the shard's committed position has passed the batch's last record: before that, live delivery may
     * still store these records itself.
     */
    public IngestResult redrive(
            List<KinesisEvent.KinesisEventRecord> records, Deadline deadline, InvocationMetrics<IngestMetric> metrics) {
        // Records too old for their hours to be rebuilt: refused whole, before anything is read or written.
        String late =
                redriveWindow == null || records.isEmpty() ? null : redriveWindow.refusal(records, clock.millis());
        if (late != null) {
            metrics.increment(IngestMetric.BATCH_FAILURES);
            return new IngestResult(
                    records.size(), 0, 0, 0, 0, 0, new WriteStats(0, 0, 0, 0, 0), firstSequence(records), late, 0);
        }
        return run(records, true, deadline, metrics);
    }

    /** Refuses redrives of records that arrived longer ago than {@code window} allows (none refused without one). */
    public IngestService redriveWindow(RedriveWindow window) {
        this.redriveWindow = window;
        return this;
    }

    private IngestResult run(
            List<KinesisEvent.KinesisEventRecord> records,
            boolean redrive,
            Deadline deadline,
            InvocationMetrics<IngestMetric> metrics) {
        long now = clock.millis();
        Tally t = new Tally(now);
        List<PoisonRecord> unkeyed = new ArrayList<>();
        Map<String, List<KinesisEvent.KinesisEventRecord>> byShard = new LinkedHashMap<>(2);
        for (KinesisEvent.KinesisEventRecord r : records) {
            KinesisEvent.Record k = r.getKinesis();
            if (k == null || k.getSequenceNumber() == null) {
                // Not something the event source mapping sends; kept out of the store, where it has no key.
                unkeyed.add(new PoisonRecord(
                        SOURCE,
                        shardId(r),
                        k == null ? null : k.getSequenceNumber(),
                        k == null ? null : k.getPartitionKey(),
                        now,
                        "record without Kinesis data or sequence number",
                        new byte[0]));
                continue;
            }
            byShard.computeIfAbsent(ShardCheckpoints.key(streamName(r), shardId(r)), x -> new ArrayList<>())
                    .add(r);
        }
        String failure = null;
        try {
            for (Map.Entry<String, List<KinesisEvent.KinesisEventRecord>> shard : byShard.entrySet()) {
                failure = ingestShard(shard.getKey(), shard.getValue(), redrive, unkeyed, t, deadline);
                unkeyed = List.of();
                if (failure != null || t.resumeAt != null) {
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
        metrics.add(IngestMetric.RESENT_RECORDS, t.resent);
        metrics.add(IngestMetric.POISON_RECORDS, t.poisonSent);
        metrics.set(IngestMetric.INGEST_LAG_MS, Math.max(0, now - t.oldestArrival));
        metrics.add(IngestMetric.MARKS_WRITTEN, t.marksWritten);
        metrics.add(IngestMetric.ITEMS_WRITTEN, t.stats.itemsWritten());
        metrics.add(IngestMetric.WRITE_RETRIES, t.stats.retries());
        metrics.add(IngestMetric.THROTTLES, t.stats.throttles());
        metrics.add(IngestMetric.UNPROCESSED_ITEMS, t.stats.unprocessedItems());
        metrics.add(IngestMetric.RECORD_FAILURES, t.recordFailures);
        metrics.add(IngestMetric.RECORDS_SET_ASIDE, t.setAside);
        metrics.add(IngestMetric.RECOVERY_ATTEMPTS, t.recoveryAttempts);
        metrics.add(IngestMetric.BATCHES_ENDED_EARLY, failure == null && t.resumeAt != null ? 1 : 0);
        if (t.poisonSent > 0) {
            // One line per batch, not per record: poison is visible without reading the queue.
            LOG.warn(
                    "{} poison record(s) sent to the dead-letter queue; first: {} {}: {}",
                    t.poisonSent,
                    t.firstPoison.shardId(),
                    t.firstPoison.sequenceNumber(),
                    t.firstPoison.reason());
        }
        String failedSequence = null;
        if (failure != null && !records.isEmpty()) {
            // From the first record the committed position does not cover: the ones before it are stored, so Lambda
            // may checkpoint them, and its retry (or bisection, or discard) then starts where a redrive must start.
            failedSequence = t.failedRecord != null
                    ? t.failedRecord
                    : byShard.size() == 1 && t.firstUncommitted != null ? t.firstUncommitted : firstSequence(records);
            metrics.increment(IngestMetric.BATCH_FAILURES);
            if (t.superseded) {
                metrics.increment(IngestMetric.SUPERSEDED_ATTEMPTS);
            }
        }
        String resumeReason = null;
        if (failure == null && t.resumeAt != null) {
            // The first records are stored and committed; Lambda resumes at the next one (a partial batch response).
            failedSequence = t.resumeAt;
            resumeReason = t.resumeReason;
        }
        return new IngestResult(
                records.size(),
                t.datapoints,
                t.poisonSent,
                t.skipped,
                t.partials,
                t.alreadyStored,
                t.stats,
                failedSequence,
                failure,
                Math.max(0, now - t.oldestArrival),
                resumeReason);
    }

    /** One shard's records (a mapping's batch is always one shard); returns the failure, or null. */
    private String ingestShard(
            String key,
            List<KinesisEvent.KinesisEventRecord> records,
            boolean redrive,
            List<PoisonRecord> unkeyed,
            Tally t,
            Deadline deadline) {
        // The highest, not the last: a hand-made batch out of shard order must not move the position backwards.
        String last = highest(records, records.size());
        ShardCheckpoints.Position position;
        try {
            position = (redrive ? checkpoints.read(key, deadline) : checkpoints.claim(key, deadline)).join();
        } catch (CompletionException e) {
            String failure = storageFailure(e, t);
            if (!redrive) {
                // The claim may have landed and counted an attempt that never touched a record.
                checkpoints
                        .releaseUnanswered(key, Deadline.inMillis(RELEASE_MILLIS))
                        .join();
            }
            return failure;
        }
        if (redrive && !position.covers(last)) {
            return "redrive refused: shard " + key + " has committed "
                    + (position.committed() == null ? "nothing" : position.committed())
                    + ", below the batch's last record " + last + "; live delivery may still"
                    + " store these records, so redrive once the shard has moved past them";
        }

        String shardId = shardId(records.get(0));
        List<KinesisEvent.KinesisEventRecord> fresh = new ArrayList<>(records.size());
        for (KinesisEvent.KinesisEventRecord r : records) {
            if (!redrive && position.covers(r.getKinesis().getSequenceNumber())) {
                t.alreadyStored++; // redelivered: stored (or sent to the DLQ) by a committed batch
                continue;
            }
            if (fresh.isEmpty() && !redrive && position.committed() != null && t.firstUncommitted == null) {
                t.firstUncommitted = r.getKinesis().getSequenceNumber();
            }
            fresh.add(r);
        }
        if (fresh.isEmpty()) {
            // Nothing of this shard to attempt: the claim counted no attempt at a record.
            if (!redrive) {
                checkpoints
                        .release(position, false, Deadline.inMillis(RELEASE_MILLIS))
                        .join();
            }
            send(new ArrayList<>(unkeyed), t, deadline); // only unkeyed poison can be left
            return null;
        }
        AttemptPlan plan = redrive
                ? new AttemptPlan(fresh.size(), false, false, 0, null, false)
                : AttemptPlan.of(
                        position,
                        fresh.size(),
                        fresh.get(0).getKinesis().getSequenceNumber(),
                        culpritIndex(position, fresh));
        if (plan.failed() > 0) {
            t.recoveryAttempts++;
        }
        Pass pass;
        try {
            if (plan.setAside()) {
                pass = setAside(fresh.get(0), plan, shardId);
            } else {
                if (plan.alone()) {
                    // Counted before the record is touched: if it kills this attempt, the count stays.
                    checkpoints
                            .countAlone(position, fresh.get(0).getKinesis().getSequenceNumber(), deadline)
                            .join();
                }
                Set<String> resends = claimPushed(key, fresh, plan.limit(), t, deadline);
                String shrunk = "after " + plan.failed() + " failed attempt(s) at record "
                        + fresh.get(0).getKinesis().getSequenceNumber() + " this attempt processes only its first "
                        + plan.limit() + " record(s)";
                pass = aggregate(fresh, plan.limit(), shrunk, !redrive, shardId, resends, t, deadline);
                if (pass.thrownAt > 0 && pass.thrown instanceof DecodeTimeout && !redrive) {
                    // Decoding this record ran the attempt out of time: nothing can be written any more. Counted,
                    // and named, so the next attempt stores the records before it and then tries it first.
                    String why = recordFailure(fresh.get(pass.thrownAt), pass.thrown);
                    t.recordFailures++;
                    checkpoints
                            .recordFailure(position, why, Deadline.inMillis(RELEASE_MILLIS))
                            .join();
                    return why;
                }
                if (pass.thrownAt == 0 || (pass.thrownAt > 0 && redrive)) {
                    // The first record itself failed: nothing before it to store. Not poison on a first failure (it
                    // may depend on the batch); the count stays up and the reason is kept for its DLQ message.
                    String why = recordFailure(fresh.get(pass.thrownAt), pass.thrown);
                    t.recordFailures++;
                    t.failedRecord = fresh.get(pass.thrownAt).getKinesis().getSequenceNumber();
                    if (!redrive) {
                        checkpoints
                                .recordFailure(position, why, Deadline.inMillis(RELEASE_MILLIS))
                                .join();
                    }
                    return why;
                }
                if (pass.thrownAt > 0) {
                    // A later record failed: store and commit the records before it, and let Lambda retry from it.
                    t.recordFailures++;
                    String why = recordFailure(fresh.get(pass.thrownAt), pass.thrown);
                    int at = pass.thrownAt;
                    pass = null; // whatever the failed record left behind must be collectable before the prefix is
                    // redone
                    pass = aggregate(fresh, at, why, true, shardId, resends, t, deadline);
                    pass.endReason = why;
                }
                if (plan.alone() && pass.decodedFirst) {
                    checkpoints.markDecoded(position, deadline).join();
                }
            }
        } catch (CompletionException e) {
            String failure = storageFailure(e, t);
            if (!t.superseded && !redrive) {
                checkpoints
                        .release(position, counted(plan), Deadline.inMillis(RELEASE_MILLIS))
                        .join();
            }
            return failure;
        }

        List<PoisonRecord> poison = new ArrayList<>(unkeyed);
        poison.addAll(pass.poison);
        t.skipped += pass.skipped;
        t.resent += pass.resent;
        t.partials += pass.partials.size();
        t.datapoints += pass.datapoints;
        List<Partial> withData = pass.tombstones ? List.of() : pass.partials;
        List<SeriesCatalog.CatalogEntry> newSeries = catalog.unseen(withData);
        List<Map<String, AttributeValue>> items = new ArrayList<>(pass.partials.size() + newSeries.size());
        for (Partial p : pass.partials) {
            Map<String, AttributeValue> item = PartialItems.partial(p, partialTtlSeconds, position.generation());
            if (pass.tombstones) {
                // The slot an earlier attempt may have filled with the set-aside record's values, emptied.
                SummaryAttributes.put(item, new Summary());
                item.remove(PartialItems.UNIT);
            }
            items.add(item);
        }
        for (SeriesCatalog.CatalogEntry c : newSeries) {
            items.add(c.item());
        }
        List<CompactMarks.Mark> newMarks =
                markMemory.toWrite(CompactMarks.marksFor(pass.partials, hourlyTtlSeconds, dailyTtlSeconds), t.now);
        boolean whole = pass.end == fresh.size();
        String commitAt = whole ? last : highest(fresh, pass.end);
        // Whether catalog entries may be stored without a version put after them: query containers that cached the
        // names' listings would not show those series until some later batch adds another one.
        boolean versionOwed = false;
        try {
            // Marks first, partials after: a stored partial always has a mark at least as old (CompactMarks).
            marks.writeAll(newMarks, t.now, deadline).join();
            markMemory.remember(newMarks);
            t.marksWritten += newMarks.size();
            versionOwed = !newSeries.isEmpty();
            t.add(store.writeAll(items, deadline).join());
            if (!newSeries.isEmpty()) {
                // After the entries, never beside them: a reader that sees this token sees them too.
                t.add(putCatalogVersion(deadline).join());
                versionOwed = false;
            }
            catalog.markWritten(newSeries);
            // Only after the data is safe: a storage failure then retries the batch without re-sending poison (a
            // failed commit after it does re-send it; docs/design.md, "Poison records").
            send(poison, t, deadline);
            if (!redrive) {
                checkpoints.commit(position, commitAt, t.now, deadline).join();
            }
        } catch (CompletionException e) {
            String failure = storageFailure(e, t);
            if (t.refused && plan.setAside() && !t.superseded) {
                failure = setAsideOneByOne(pass, items, poison, position, commitAt, t, deadline);
            }
            // One budget after the deadline for the checkpoint first (it lets the retry start at once), then the
            // version in what is left of it.
            Deadline after = Deadline.inMillis(RELEASE_MILLIS);
            if (failure == null) {
                if (versionOwed) {
                    putCatalogVersionAfterFailure(t, after);
                }
                return finish(plan, pass, fresh, whole, shardId, t);
            }
            if (!t.superseded && !redrive) {
                if (t.refused) {
                    checkpoints.recordFailure(position, failure, after).join();
                } else {
                    checkpoints.release(position, counted(plan), after).join();
                }
            }
            if (versionOwed) {
                putCatalogVersionAfterFailure(t, after);
            }
            return failure;
        } catch (DeadLetterException e) {
            if (!redrive) {
                checkpoints
                        .release(position, counted(plan), Deadline.inMillis(RELEASE_MILLIS))
                        .join();
            }
            throw e;
        }
        return finish(plan, pass, fresh, whole, shardId, t);
    }

    /** After the commit: the set-aside record's WARN line, and where Lambda resumes when the batch ended early. */
    private static String finish(
            AttemptPlan plan,
            Pass pass,
            List<KinesisEvent.KinesisEventRecord> fresh,
            boolean whole,
            String shardId,
            Tally t) {
        if (plan.setAside()) {
            t.setAside++;
            LOG.warn(
                    "record {} {} set aside to the dead-letter queue: {}",
                    shardId,
                    fresh.get(0).getKinesis().getSequenceNumber(),
                    plan.reason());
        }
        if (!whole) {
            t.resumeAt = fresh.get(pass.end).getKinesis().getSequenceNumber();
            t.resumeReason = pass.endReason;
        }
        return null;
    }

    /**
     * A setting-aside attempt whose placeholders DynamoDB refused for good (the keys it refused when the record was
     * stored, so no attempt wrote them either): each placeholder with its marks on its own, skipping the refused
     * ones, then the DLQ and the commit. Without this the record would be refused on every attempt and hold its
     * shard. Returns the failure, or null.
     */
    private String setAsideOneByOne(
            Pass pass,
            List<Map<String, AttributeValue>> items,
            List<PoisonRecord> poison,
            ShardCheckpoints.Position position,
            String commitAt,
            Tally t,
            Deadline deadline) {
        t.refused = false;
        int skipped = 0;
        try {
            for (int i = 0; i < pass.partials.size(); i++) {
                try {
                    marks.writeAll(
                                    CompactMarks.marksFor(
                                            List.of(pass.partials.get(i)), hourlyTtlSeconds, dailyTtlSeconds),
                                    t.now,
                                    deadline)
                            .join();
                    t.add(store.writeAll(List.of(items.get(i)), deadline).join());
                } catch (CompletionException e) {
                    if (!(e.getCause() instanceof StoreException se) || !refusedForGood(se)) {
                        throw e;
                    }
                    skipped++;
                }
            }
            if (skipped > 0) {
                LOG.warn("{} placeholder(s) of a set-aside record refused by DynamoDB for good, skipped", skipped);
            }
            send(poison, t, deadline);
            checkpoints.commit(position, commitAt, t.now, deadline).join();
            return null;
        } catch (CompletionException e) {
            return storageFailure(e, t);
        } catch (DeadLetterException e) {
            checkpoints
                    .release(position, false, Deadline.inMillis(RELEASE_MILLIS))
                    .join();
            throw e;
        }
    }

    /**
     * After a failed write of catalog entries (or of the version after them), whatever part of them landed: a new
     * version, in what the checkpoint's release left of the time kept back after the deadline, so query containers list
     * the entries that did land as an uncached listing does, not only once the retry (or some later batch with new
     * series) puts one. Best effort: when this fails too, the retry of the batch writes its entries and a version again.
     */
    private void putCatalogVersionAfterFailure(Tally t, Deadline after) {
        if (after.expired()) {
            LOG.warn(
                    "catalog version not put after the failed write of catalog entries: no time left after the deadline");
            return;
        }
        try {
            t.add(putCatalogVersion(after).join());
        } catch (CompletionException e) {
            LOG.warn("catalog version not put after the failed write of catalog entries: {}", e.getMessage());
        }
    }

    /** A new catalog version, put after catalog entries are stored (never beside them). */
    private java.util.concurrent.CompletableFuture<WriteStats> putCatalogVersion(Deadline deadline) {
        return store.writeAll(List.of(PartialItems.catalogVersion(catalogToken())), deadline);
    }

    /**
     * A new token for the catalog's version: unique enough that two writes never put the same one (readers compare
     * tokens for equality only); not from {@code SecureRandom}, which may block.
     */
    private static String catalogToken() {
        java.util.concurrent.ThreadLocalRandom r = java.util.concurrent.ThreadLocalRandom.current();
        return Long.toHexString(r.nextLong()) + Long.toHexString(r.nextLong());
    }

    /** True when the attempt counted itself as one of the record alone (a setting aside does not). */
    private static boolean counted(AttemptPlan plan) {
        return plan.alone() && !plan.setAside();
    }

    /** What one pass over an attempt's new records built. */
    private static final class Pass {
        List<Partial> partials = List.of();
        final List<PoisonRecord> poison = new ArrayList<>();
        long datapoints;
        long skipped;
        long resent;
        /** Records processed: the attempt ends before this index. */
        int end;
        /** Why it ends before its last record, or null. */
        String endReason;
        /** The index of a record whose decoding or aggregation threw, or -1. */
        int thrownAt = -1;

        Throwable thrown;
        /** True once the first record decoded (an attempt of it alone tells the checkpoint). */
        boolean decodedFirst;
        /** The partials are empty placeholders for a set-aside record's slots. */
        boolean tombstones;
    }

    /**
     * Claims the content of the pushed records among the first {@code limit} of {@code fresh} for them; returns the
     * sequence numbers of those whose content another record owns: PushFunction put them again for a client that sent
     * its request again (docs/design.md, "Pushed records sent again").
     */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    private Set<String> claimPushed(
            String key, List<KinesisEvent.KinesisEventRecord> fresh, int limit, Tally t, Deadline deadline) {
        List<ShardCheckpoints.Content> pushed = new ArrayList<>();
        for (int i = 0; i < Math.min(limit, fresh.size()); i++) {
            KinesisEvent.Record k = fresh.get(i).getKinesis();
            if (ShardCheckpoints.isPushed(k.getPartitionKey()) && k.getData() != null) {
                // A record without an arrival time is poison (NO_ARRIVAL); its claim counts from now.
                long arrival = k.getApproximateArrivalTimestamp() == null
                        ? t.now
                        : k.getApproximateArrivalTimestamp().getTime();
                pushed.add(new ShardCheckpoints.Content(key + "#" + k.getSequenceNumber(), k.getData(), arrival));
            }
        }
        if (pushed.isEmpty()) {
            return Set.of();
        }
        Set<String> owners = checkpoints.claimContent(pushed, t.now, deadline).join();
        Set<String> sequences = new HashSet<>();
        for (String owner : owners) {
            sequences.add(owner.substring(key.length() + 1));
        }
        return sequences;
    }

    /**
     * Decodes and aggregates {@code fresh} from its first record, up to {@code limit} records, ending early (never
     * before the first record) when the batch reaches {@link #MAX_BATCH_PARTIALS} or {@link #MAX_BATCH_DATAPOINTS}.
     * A record whose decoding or aggregation throws (an Error included) stops the pass with {@link Pass#thrownAt}.
     */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    private Pass aggregate(
            List<KinesisEvent.KinesisEventRecord> fresh,
            int limit,
            String limitReason,
            boolean batchLimits,
            String shardId,
            Set<String> resends,
            Tally t,
            Deadline deadline) {
        Pass pass = new Pass();
        BatchAggregator aggregator = new BatchAggregator(shardId);
        // Decoding may take half of what the attempt has left; the rest is for the writes. A batch that needs more
        // is stored in pieces, so no batch fails for being large or slow to decode (and retried at the same size).
        long started = System.nanoTime();
        long decodeNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(0, deadline.remainingMillis()) / 2);
        int i = 0;
        for (; i < fresh.size(); i++) {
            if (i >= limit) {
                pass.endReason = limitReason;
                break;
            }
            if (batchLimits && i > 0 && System.nanoTime() - started > decodeNanos) {
                pass.endReason = "decoding " + i + " record(s) took "
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)
                        + " ms, half of the attempt's time: the rest in the next attempt";
                break;
            }
            if (batchLimits && i > 0) {
                String reached = aggregator.partials().size() >= maxBatchPartials
                        ? "the batch holds " + aggregator.partials().size() + " (series, minute) partials, the limit"
                                + " per batch is " + maxBatchPartials
                        : aggregator.datapoints() >= maxBatchDatapoints
                                ? "the batch holds " + aggregator.datapoints() + " datapoints, the limit per batch is "
                                        + maxBatchDatapoints
                                : null;
                if (reached != null) {
                    pass.endReason = reached;
                    break;
                }
            }
            KinesisEvent.Record k = fresh.get(i).getKinesis();
            if (resends.contains(k.getSequenceNumber())) {
                pass.resent++; // a pushed record another record of the same content already stores
                pass.decodedFirst |= i == 0;
                continue;
            }
            byte[] data = bytes(k.getData());
            if (k.getApproximateArrivalTimestamp() == null) {
                pass.poison.add(new PoisonRecord(
                        SOURCE, shardId, k.getSequenceNumber(), k.getPartitionKey(), t.now, NO_ARRIVAL, data));
                pass.decodedFirst |= i == 0;
                continue;
            }
            long arrival = k.getApproximateArrivalTimestamp().getTime();
            t.oldestArrival = Math.min(t.oldestArrival, arrival);
            try {
                List<RecordDecoder.Unit> units;
                try {
                    // The window is centred on the arrival time, not the clock: every attempt at this batch must
                    // accept exactly the same records, or a retry would key partials differently.
                    units = decoder.decodeUnits(data, k.getPartitionKey(), arrival);
                } catch (DecodeException e) {
                    // A KPL aggregate that cannot be split: no user record of it can be trusted.
                    LOG.debug("poison record {} {}: {}", shardId, k.getSequenceNumber(), e.getMessage());
                    pass.poison.add(new PoisonRecord(
                            SOURCE,
                            shardId,
                            k.getSequenceNumber(),
                            k.getPartitionKey(),
                            arrival,
                            e.getMessage(),
                            data));
                    pass.decodedFirst |= i == 0;
                    continue;
                }
                for (RecordDecoder.Unit u : units) {
                    // A user record of an aggregate is keyed by its sub-sequence too, so the slot names the user
                    // record that first touched the (series, minute). The aggregate itself is stored all or nothing
                    // with its batch: Lambda retries from a Kinesis record, never from inside one (docs/design.md,
                    // "KPL aggregation").
                    String sequence = ShardCheckpoints.userRecordSequence(k.getSequenceNumber(), u.subSequence());
                    Decoded d = u.decoded();
                    if (d != null) {
                        aggregator.addRecord(sequence, d.datapoints());
                        pass.skipped += d.skippedEvents();
                    } else {
                        LOG.debug("poison record {} {}: {}", shardId, sequence, u.poisonReason());
                        pass.poison.add(new PoisonRecord(
                                SOURCE, shardId, sequence, u.partitionKey(), arrival, u.poisonReason(), u.data()));
                    }
                }
                pass.decodedFirst |= i == 0;
            } catch (Throwable e) { // NOPMD: an Error (the heap, the stack) on one record must not crash the batch
                pass.thrownAt = i;
                pass.thrown = e;
                return pass;
            }
            if (batchLimits && deadline.expired()) {
                // This record's decoding used up the attempt: whatever was decoded cannot be written in time.
                pass.thrownAt = i;
                pass.thrown = new DecodeTimeout("its decoding ran the attempt past its deadline ("
                        + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) + " ms decoding " + (i + 1)
                        + " record(s))");
                return pass;
            }
        }
        pass.end = i;
        pass.partials = new ArrayList<>(aggregator.partials());
        pass.datapoints = aggregator.datapoints();
        return pass;
    }

    /**
     * The attempt that sets {@code record} aside: the record to the DLQ with {@code plan}'s reason, and, when attempts
     * of it alone decoded it, an empty partial in every slot it names (the first contributor of its (series,
     * minute)s), replacing what any earlier attempt left there with its values. The record is then a committed piece
     * of its own: the attempts after it name their partials by their own records (docs/design.md).
     */
    // aws-lambda-java-events types a Kinesis record's arrival time as java.util.Date: read once, as epoch millis.
    @SuppressWarnings("JavaUtilDate")
    private Pass setAside(KinesisEvent.KinesisEventRecord record, AttemptPlan plan, String shardId) {
        KinesisEvent.Record k = record.getKinesis();
        byte[] data = bytes(k.getData());
        Pass pass = new Pass();
        pass.end = 1;
        pass.endReason = "record " + k.getSequenceNumber() + " was set aside";
        pass.tombstones = true;
        long arrival = k.getApproximateArrivalTimestamp() == null
                ? clock.millis()
                : k.getApproximateArrivalTimestamp().getTime();
        pass.poison.add(new PoisonRecord(
                SOURCE, shardId, k.getSequenceNumber(), k.getPartitionKey(), arrival, plan.reason(), data));
        if (plan.nameSlots() && k.getApproximateArrivalTimestamp() != null) {
            BatchAggregator slots = new BatchAggregator(shardId);
            try {
                for (RecordDecoder.Unit u : decoder.decodeUnits(data, k.getPartitionKey(), arrival)) {
                    if (u.decoded() != null) {
                        slots.addRecord(
                                ShardCheckpoints.userRecordSequence(k.getSequenceNumber(), u.subSequence()),
                                u.decoded().datapoints());
                    }
                }
                pass.partials = new ArrayList<>(slots.partials());
            } catch (Throwable e) { // NOPMD: decoded by an earlier attempt; if not now, its slots stay unnamed
                LOG.warn(
                        "record {} {} set aside without naming its partials: decoding it threw {}",
                        shardId,
                        k.getSequenceNumber(),
                        e.toString());
            }
        }
        return pass;
    }

    /** A record whose decoding ran its attempt past the deadline: a failure of the record, counted like an Error. */
    static final class DecodeTimeout extends RuntimeException {
        DecodeTimeout(String message) {
            super(message, null, false, false);
        }

        // The poison reason and the logs print the message alone, without the class name toString() would add.
        @SuppressWarnings("OverrideThrowableToString")
        @Override
        public String toString() {
            return getMessage();
        }
    }

    /** The index among {@code fresh} of the record {@link AttemptPlan#culprit} names, or -1. */
    static int culpritIndex(ShardCheckpoints.Position p, List<KinesisEvent.KinesisEventRecord> fresh) {
        String sequence = AttemptPlan.culprit(p);
        for (int i = 0; sequence != null && i < fresh.size(); i++) {
            if (fresh.get(i).getKinesis().getSequenceNumber().equals(sequence)) {
                return i;
            }
        }
        return -1;
    }

    /** The reason a record failed an attempt, for its DLQ message if it is set aside (bounded: SQS and the item). */
    private static String recordFailure(KinesisEvent.KinesisEventRecord r, Throwable e) {
        String why = AttemptPlan.RECORD_FAILED + r.getKinesis().getSequenceNumber() + " failed while decoding: " + e;
        return why.length() <= MAX_REASON_CHARS ? why : why.substring(0, MAX_REASON_CHARS);
    }

    /** The highest sequence number of the first {@code n} records. */
    private static String highest(List<KinesisEvent.KinesisEventRecord> records, int n) {
        String last = records.get(0).getKinesis().getSequenceNumber();
        for (int i = 1; i < n; i++) {
            String s = records.get(i).getKinesis().getSequenceNumber();
            if (ShardCheckpoints.compareSequences(s, last) > 0) {
                last = s;
            }
        }
        return last;
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
            t.refused = refusedForGood(se);
            String why = "storage: " + se.getMessage();
            return why.length() <= MAX_REASON_CHARS ? why : why.substring(0, MAX_REASON_CHARS);
        }
        throw e;
    }

    /**
     * True when DynamoDB refused an item for good (a 4xx other than throttling: an item too large, a key it rejects):
     * a failure of the records, which counts towards setting one aside. Everything else (throttling, 5xx, the
     * client's I/O errors and timeouts, the deadline) is the service's, and the shard waits for it.
     */
    // Identity is the point: a cause that is the exception itself ends the chain.
    @SuppressWarnings("ReferenceEquality")
    static boolean refusedForGood(StoreException e) {
        for (Throwable c = e.getCause(); c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof AwsServiceException s) {
                int status = s.statusCode();
                String code =
                        s.awsErrorDetails() == null ? null : s.awsErrorDetails().errorCode();
                return status >= 400 && status < 500 && !THROTTLING.contains(code);
            }
        }
        return false;
    }

    /** What the shards of one invocation did. */
    private static final class Tally {
        final long now;
        long oldestArrival;
        long datapoints;
        long skipped;
        long alreadyStored;
        long resent;
        int partials;
        int poisonSent;
        int marksWritten;
        boolean superseded;
        /** The last storage failure was DynamoDB refusing an item for good. */
        boolean refused;

        int recordFailures;
        int setAside;
        int recoveryAttempts;
        /** A record whose decoding threw, reported as the batch item failure. */
        String failedRecord;
        /** Where Lambda must resume after a batch that stored and committed only its first records, and why. */
        String resumeAt;

        String resumeReason;
        PoisonRecord firstPoison;
        /** In a batch that starts below the committed position, its first record above it. */
        String firstUncommitted;

        WriteStats stats = new WriteStats(0, 0, 0, 0, 0);

        Tally(long now) {
            this.now = now;
            this.oldestArrival = now;
        }

        void add(WriteStats s) {
            stats = new WriteStats(
                    stats.itemsWritten() + s.itemsWritten(),
                    stats.retries() + s.retries(),
                    stats.throttles() + s.throttles(),
                    stats.unprocessedItems() + s.unprocessedItems(),
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
