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
package dev.pulse.loadgen;

import dev.pulse.codec.KplAggregate;
import dev.pulse.retry.Backoff;
import dev.pulse.retry.Deadline;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.kinesis.KinesisAsyncClient;
import software.amazon.awssdk.services.kinesis.model.PutRecordsRequestEntry;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResponse;
import software.amazon.awssdk.services.kinesis.model.PutRecordsResultEntry;

/**
 * Sends records on a {@link Schedule} with PutRecords (up to 500 records / 5 MB a call), never waiting for
 * the target before the next send: calls overlap, so a slow or stalled stream delays acknowledgements, not
 * the offered rate. Latency runs from each record's intended time to its acknowledgement. Failed records
 * are retried with backoff (throttling counted apart from errors); partition keys are kept.
 *
 * <p>With {@link #withAggregation} the records due in one tick are packed into KPL aggregates
 * ({@link KplAggregate}) up to a size, each put under its first record's partition key: what a KPL producer sends,
 * so a run measures what aggregation saves in Kinesis records and PUT payload units ({@link SendReport.Units}).
 */
public final class KinesisSender {

    static final int MAX_RECORDS_PER_CALL = 500;
    static final int MAX_BYTES_PER_CALL = 5 * 1024 * 1024;
    /** How often due records are gathered into calls: bounds the call rate at high record rates. */
    static final long TICK_NANOS = 5_000_000L;
    /** Calls in flight beyond which new records are failed rather than held: memory stays bounded. */
    static final int MAX_IN_FLIGHT_CALLS = 4_000;

    private final KinesisAsyncClient client;
    private final String stream;
    private final Backoff backoff;
    private final int maxAttempts;
    /** 0: one Kinesis record per replayed record. */
    private final int maxAggregateBytes;

    public KinesisSender(KinesisAsyncClient client, String stream, Backoff backoff, int maxAttempts) {
        this(client, stream, backoff, maxAttempts, 0);
    }

    private KinesisSender(
            KinesisAsyncClient client, String stream, Backoff backoff, int maxAttempts, int maxAggregateBytes) {
        this.client = client;
        this.stream = stream;
        this.backoff = backoff;
        this.maxAttempts = maxAttempts;
        this.maxAggregateBytes = maxAggregateBytes;
    }

    /** This sender packing records into KPL aggregates of at most {@code maxBytes} (0: not at all). */
    public KinesisSender withAggregation(int maxBytes) {
        return new KinesisSender(client, stream, backoff, maxAttempts, maxBytes);
    }

    /**
     * A Kinesis record on its way: what to send, when it was meant to go (its earliest user record's time), how
     * often it was tried, how many replayed records it carries and what they would cost sent one by one.
     */
    private record Entry(
            ReplayRecord record,
            long intendedNanos,
            int attempt,
            long retryAtNanos,
            boolean canary,
            int users,
            long plainUnits) {

        static Entry of(ReplayRecord r, long intendedNanos, boolean canary) {
            return new Entry(r, intendedNanos, 0, 0, canary, 1, SendReport.Units.of(size(r)));
        }

        Entry retry(long at) {
            return new Entry(record, intendedNanos, attempt + 1, at, canary, users, plainUnits);
        }
    }

    private static int size(ReplayRecord r) {
        return r.data().length + r.partitionKey().getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * Runs the schedule for {@code durationSeconds} (or {@code maxRecords}, or until {@code deadline}), then
     * waits for the last acknowledgements and retries until the deadline. A canary record goes out at each
     * whole second when {@code canary} is given.
     */
    public SendReport run(
            List<ReplayRecord> records,
            Schedule schedule,
            double targetRate,
            double rampSeconds,
            long durationSeconds,
            long maxRecords,
            Deadline deadline,
            Canary canary) {
        State st = new State((int) durationSeconds + 1);
        long start = System.nanoTime();
        long end = durationSeconds * 1_000_000_000L;
        long i = 0;
        long nextCanary = 0;
        PriorityQueue<Entry> retries = new PriorityQueue<>((a, b) -> Long.compare(a.retryAtNanos(), b.retryAtNanos()));
        while (true) {
            long now = System.nanoTime() - start;
            boolean scheduling = now < end && !deadline.expired();
            List<Entry> due = new ArrayList<>();
            if (scheduling) {
                long offset;
                while (i < maxRecords && (offset = schedule.offsetNanos(i)) <= now && offset < end) {
                    due.add(Entry.of(records.get((int) (i % records.size())), offset, false));
                    st.scheduledPerSecond.incrementAndGet((int) (offset / 1_000_000_000L));
                    i++;
                }
                if (canary != null && nextCanary * 1_000_000_000L <= now && nextCanary < durationSeconds) {
                    due.add(Entry.of(canary.record(nextCanary), nextCanary * 1_000_000_000L, true));
                    st.canaries.add(System.currentTimeMillis());
                    nextCanary++;
                }
            }
            for (Entry e; (e = st.toRetry.poll()) != null; ) {
                retries.add(e);
            }
            while (!retries.isEmpty() && retries.peek().retryAtNanos() <= now) {
                due.add(retries.poll());
            }
            if (!due.isEmpty()) {
                send(due, st, start);
            }
            if (!scheduling && retries.isEmpty() && st.toRetry.isEmpty() && st.inFlight.get() == 0) {
                break;
            }
            if (!scheduling && deadline.expired()) {
                st.failed.add(retries.size() + st.toRetry.size());
                break;
            }
            long next = now + TICK_NANOS;
            LockSupport.parkNanos(Math.max(0, next - (System.nanoTime() - start)));
        }
        // Achieved rate: records sent in the whole seconds after the ramp, over those seconds.
        int firstFull = (int) Math.ceil(rampSeconds);
        long sentAfterRamp = 0;
        for (int s = firstFull; s < durationSeconds; s++) {
            sentAfterRamp += st.perSecond.get(s);
        }
        double achieved = durationSeconds > firstFull ? (double) sentAfterRamp / (durationSeconds - firstFull) : 0;
        long[] perSecond = new long[(int) durationSeconds];
        long[] scheduled = new long[(int) durationSeconds];
        List<SendReport.Second> latencyPerSecond = new ArrayList<>((int) durationSeconds);
        for (int s = 0; s < perSecond.length; s++) {
            perSecond[s] = st.perSecond.get(s);
            scheduled[s] = st.scheduledPerSecond.get(s);
            latencyPerSecond.add(SendReport.Second.of(st.latencyPerSecond.get(s)));
        }
        return new SendReport(
                st.sent.sum(),
                st.acked.sum(),
                st.failed.sum(),
                st.throttled.sum(),
                st.retried.sum(),
                targetRate,
                achieved,
                perSecond,
                scheduled,
                List.copyOf(latencyPerSecond),
                List.copyOf(st.canaries),
                st.latency,
                new SendReport.Units(
                        st.kinesisRecords.sum(), st.payloadBytes.sum(), st.units.sum(), st.plainUnits.sum()),
                unconfirmed(st));
    }

    private static List<Integer> unconfirmed(State st) {
        List<Integer> out = new ArrayList<>(st.canaries.size());
        for (long k = 0; k < st.canaries.size(); k++) {
            out.add(st.canaryUnconfirmed.getOrDefault(k, 0));
        }
        return List.copyOf(out);
    }

    private void send(List<Entry> due, State st, long start) {
        if (maxAggregateBytes > 0) {
            due = aggregate(due);
        }
        List<Entry> call = new ArrayList<>();
        int bytes = 0;
        for (Entry e : due) {
            int size = size(e.record());
            if (!call.isEmpty() && (call.size() == MAX_RECORDS_PER_CALL || bytes + size > MAX_BYTES_PER_CALL)) {
                put(call, st, start);
                call = new ArrayList<>();
                bytes = 0;
            }
            call.add(e);
            bytes += size;
        }
        if (!call.isEmpty()) {
            put(call, st, start);
        }
    }

    /**
     * Packs the new records of one tick into aggregates, in order, each within {@link #maxAggregateBytes}. Retries
     * stay what they were (an aggregate is retried whole), canaries stay plain (CanaryVerifier reads them one by
     * one), and a group of one is sent plain, as the KPL does.
     */
    private List<Entry> aggregate(List<Entry> due) {
        List<Entry> out = new ArrayList<>(due.size());
        List<Entry> group = new ArrayList<>();
        Set<String> keys = new HashSet<>();
        int bytes = KplAggregate.OVERHEAD_BYTES;
        int limit = maxAggregateBytes;
        for (Entry e : due) {
            if (e.attempt() > 0 || e.canary()) {
                out.add(e);
                continue;
            }
            String pk = e.record().partitionKey();
            if (group.isEmpty()) {
                limit = aggregateLimit(pk);
            }
            int cost = KplAggregate.recordCost(pk, e.record().data().length, !keys.contains(pk));
            if (!group.isEmpty() && bytes + cost > limit) {
                out.add(pack(group));
                group = new ArrayList<>();
                keys.clear();
                bytes = KplAggregate.OVERHEAD_BYTES;
                cost = KplAggregate.recordCost(pk, e.record().data().length, true);
                limit = aggregateLimit(pk);
            }
            group.add(e);
            keys.add(pk);
            bytes += cost;
        }
        if (!group.isEmpty()) {
            out.add(pack(group));
        }
        return out;
    }

    /**
     * An aggregate goes out under its first record's partition key, which Kinesis counts in the record's 1 MiB: a key
     * of 256 characters can take up to 1,024 bytes, more than {@link LoadGenRequest#MAX_AGGREGATE_BYTES} leaves.
     */
    private int aggregateLimit(String firstKey) {
        return Math.min(
                maxAggregateBytes, ReplaySource.MAX_RECORD_BYTES - firstKey.getBytes(StandardCharsets.UTF_8).length);
    }

    private static Entry pack(List<Entry> group) {
        if (group.size() == 1) {
            return group.get(0);
        }
        List<Map.Entry<String, byte[]>> users = new ArrayList<>(group.size());
        long plainUnits = 0;
        for (Entry e : group) {
            users.add(Map.entry(e.record().partitionKey(), e.record().data()));
            plainUnits += e.plainUnits();
        }
        Entry first = group.get(0);
        ReplayRecord agg = new ReplayRecord(
                KplAggregate.write(users),
                first.record().partitionKey(),
                first.record().recordedMillis());
        return new Entry(agg, first.intendedNanos(), 0, 0, false, group.size(), plainUnits);
    }

    // The callback records every outcome, failures included, in the run's state: the stage it returns adds nothing.
    @SuppressWarnings("FutureReturnValueIgnored")
    private void put(List<Entry> call, State st, long start) {
        long sentAt = System.nanoTime() - start;
        int second = (int) (sentAt / 1_000_000_000L);
        for (Entry e : call) {
            if (e.attempt() == 0 && !e.canary()) {
                st.sent.add(e.users());
                if (second < st.perSecond.length()) {
                    st.perSecond.addAndGet(second, e.users());
                }
            }
        }
        if (st.inFlight.get() >= MAX_IN_FLIGHT_CALLS) {
            st.failed.add(call.stream()
                    .filter(e -> !e.canary())
                    .mapToLong(Entry::users)
                    .sum());
            return;
        }
        List<PutRecordsRequestEntry> entries = new ArrayList<>(call.size());
        for (Entry e : call) {
            entries.add(PutRecordsRequestEntry.builder()
                    .data(SdkBytes.fromByteArrayUnsafe(e.record().data()))
                    .partitionKey(e.record().partitionKey())
                    .build());
        }
        st.inFlight.incrementAndGet();
        client.putRecords(b -> b.streamName(stream).records(entries)).whenComplete((resp, error) -> {
            try {
                long now = System.nanoTime() - start;
                if (error != null) {
                    // The call may have reached Kinesis before it failed (a timeout, a reset connection): a canary
                    // in it may be stored once more than it is acknowledged, which the canary check allows for.
                    call.stream()
                            .filter(Entry::canary)
                            .forEach(e ->
                                    st.canaryUnconfirmed.merge(e.intendedNanos() / 1_000_000_000L, 1, Integer::sum));
                    call.forEach(e -> retryOrFail(e, st, now, false));
                } else {
                    handle(call, resp, st, now);
                }
            } finally {
                st.inFlight.decrementAndGet();
            }
        });
    }

    private void handle(List<Entry> call, PutRecordsResponse resp, State st, long now) {
        List<PutRecordsResultEntry> results = resp.records();
        for (int k = 0; k < call.size(); k++) {
            Entry e = call.get(k);
            PutRecordsResultEntry r = k < results.size() ? results.get(k) : null;
            if (r != null && r.errorCode() == null) {
                if (!e.canary()) {
                    st.acked.add(e.users());
                    // Per user record: an aggregate's records share its acknowledgement, from its first's time.
                    LatencyHistogram second = st.latencyOf(e.intendedNanos());
                    for (int u = 0; u < e.users(); u++) {
                        st.latency.recordMicros((now - e.intendedNanos()) / 1000);
                        if (second != null) {
                            second.recordMicros((now - e.intendedNanos()) / 1000);
                        }
                    }
                    int bytes = size(e.record());
                    st.kinesisRecords.increment();
                    st.payloadBytes.add(bytes);
                    st.units.add(SendReport.Units.of(bytes));
                    st.plainUnits.add(e.plainUnits());
                }
            } else {
                retryOrFail(e, st, now, r != null && "ProvisionedThroughputExceededException".equals(r.errorCode()));
            }
        }
    }

    private void retryOrFail(Entry e, State st, long now, boolean throttled) {
        if (throttled) {
            st.throttled.increment();
        }
        if (e.attempt() + 1 >= maxAttempts) {
            if (!e.canary()) {
                st.failed.add(e.users());
            }
            return;
        }
        st.retried.increment();
        long delay = backoff.delayMillis(e.attempt()) * 1_000_000L;
        st.toRetry.add(e.retry(now + delay));
    }

    /** Shared between the scheduling thread and the SDK's completion threads. */
    private static final class State {
        final LongAdder sent = new LongAdder();
        final LongAdder acked = new LongAdder();
        final LongAdder failed = new LongAdder();
        final LongAdder throttled = new LongAdder();
        final LongAdder retried = new LongAdder();
        final LongAdder kinesisRecords = new LongAdder();
        final LongAdder payloadBytes = new LongAdder();
        final LongAdder units = new LongAdder();
        final LongAdder plainUnits = new LongAdder();
        final AtomicInteger inFlight = new AtomicInteger();
        final Queue<Entry> toRetry = new ConcurrentLinkedQueue<>();
        final AtomicLongArray perSecond;
        final AtomicLongArray scheduledPerSecond;
        // One small histogram per second of intended send time, for the report's latency-over-time chart.
        final AtomicReferenceArray<LatencyHistogram> latencyPerSecond;
        final List<Long> canaries = new ArrayList<>();
        /** Canary second -> PutRecords calls that failed without saying whether the canary was stored. */
        final java.util.concurrent.ConcurrentHashMap<Long, Integer> canaryUnconfirmed =
                new java.util.concurrent.ConcurrentHashMap<>();

        final LatencyHistogram latency = new LatencyHistogram();

        State(int seconds) {
            perSecond = new AtomicLongArray(seconds);
            scheduledPerSecond = new AtomicLongArray(seconds);
            latencyPerSecond = new AtomicReferenceArray<>(seconds);
        }

        /** The histogram of the second an entry was intended for; null past the run's end. */
        LatencyHistogram latencyOf(long intendedNanos) {
            int s = (int) (intendedNanos / 1_000_000_000L);
            if (s < 0 || s >= latencyPerSecond.length()) {
                return null;
            }
            LatencyHistogram h = latencyPerSecond.get(s);
            if (h == null) {
                latencyPerSecond.compareAndSet(s, null, LatencyHistogram.coarse());
                h = latencyPerSecond.get(s);
            }
            return h;
        }
    }

    /** Builds the canary record of second {@code k} of a run. */
    public interface Canary {
        ReplayRecord record(long k);
    }
}
