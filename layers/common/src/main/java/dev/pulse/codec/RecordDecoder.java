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
package dev.pulse.codec;

import dev.pulse.model.Datapoint;
import dev.pulse.model.DatapointValidator;
import dev.pulse.model.ValidationException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decodes the data of one Kinesis record in either input format and validates every datapoint.
 *
 * <p>A record is all or nothing: if any part of it cannot be decoded or any datapoint is invalid the
 * whole record is poison, so a fixed record can be put back on the stream without double counting the
 * part that was accepted. OTLP metrics (the Collector's awskinesis exporter, any of its encodings and
 * compressions) are recognised by content first ({@link OtlpDecoder#detect}); other gzip data (magic
 * {@code 1f 8b}) is a CloudWatch Logs subscription payload; anything else is native JSON. A KPL aggregate (magic
 * {@code F3 89 9A C2}) is split by {@link #decodeUnits} into its user records, each all or nothing on its own.
 */
public final class RecordDecoder {

    /**
     * More poison user records than this in one aggregate make the whole Kinesis record one poison record: each
     * poison unit is a DLQ message, and a 1 MB aggregate can hold ~170,000 empty user records, far more than one
     * invocation can send (docs/design.md, "KPL aggregation").
     */
    public static final int MAX_POISON_USER_RECORDS = DecodeLimits.MAX_POISON_USER_RECORDS;

    private final NativeDecoder nativeDecoder = new NativeDecoder();
    private final CloudWatchLogsDecoder logsDecoder = new CloudWatchLogsDecoder();
    private final OtlpDecoder otlpDecoder = new OtlpDecoder();
    private final MetricStreamDecoder metricStreamDecoder = new MetricStreamDecoder();
    private final DatapointValidator validator;

    public RecordDecoder(DatapointValidator validator) {
        this.validator = validator;
    }

    /**
     * One unit of poison handling: a plain record ({@code subSequence} -1) or one user record of a KPL aggregate.
     * Exactly one of {@code decoded} and {@code poisonReason} is set.
     */
    public record Unit(int subSequence, String partitionKey, byte[] data, Decoded decoded, String poisonReason) {}

    /**
     * Decodes a Kinesis record into its units: itself, or the user records of a KPL aggregate, each decoded and
     * validated on its own so that one bad user record is poison alone. Throws {@link DecodeException} only for an
     * aggregate that cannot be split (bad MD5, bad protobuf) or that has more than {@link #MAX_POISON_USER_RECORDS}
     * poison user records: then the whole Kinesis record is poison and none of its user records is stored.
     * {@code partitionKey} is the Kinesis record's.
     */
    public List<Unit> decodeUnits(byte[] data, String partitionKey, long referenceMillis) throws DecodeException {
        if (!KplAggregate.isAggregate(data)) {
            try {
                return List.of(new Unit(
                        -1, partitionKey, data, decode(data, referenceMillis, DecodeBudget.forRecord()), null));
            } catch (DecodeException e) {
                return List.of(new Unit(-1, partitionKey, data, null, e.getMessage()));
            }
        }
        List<KplAggregate.UserRecord> users = KplAggregate.read(data);
        List<Unit> out = new ArrayList<>(users.size());
        // One budget for all user records: they are one Kinesis record, and their datapoints are held until it is
        // split.
        DecodeBudget budget = DecodeBudget.forAggregate();
        int poison = 0;
        int decodedDatapoints = 0;
        String firstReason = null;
        for (KplAggregate.UserRecord u : users) {
            try {
                if (KplAggregate.isAggregate(u.data())) {
                    throw new DecodeException("nested KPL aggregate (an aggregate is split once, not recursively)");
                }
                Decoded d = decode(u.data(), referenceMillis, budget);
                decodedDatapoints += d.datapoints().size();
                out.add(new Unit(u.subSequence(), u.partitionKey(), u.data(), d, null));
            } catch (AggregateLimitException e) {
                throw new DecodeException("user record #" + u.subSequence() + ": " + e.getMessage()
                        + ", so the whole record is poison and none of it is stored");
            } catch (DecodeException e) {
                String reason = "user record #" + u.subSequence() + " of a KPL aggregate: " + e.getMessage();
                out.add(new Unit(u.subSequence(), u.partitionKey(), u.data(), null, reason));
                if (poison++ == 0) {
                    firstReason = reason;
                }
            }
        }
        if (poison > MAX_POISON_USER_RECORDS) {
            throw new DecodeException("KPL aggregate: " + poison + " of its " + users.size()
                    + " user records are poison, more than " + MAX_POISON_USER_RECORDS
                    + " per aggregate (MAX_POISON_USER_RECORDS), so the whole record is poison and none of it is stored; first: "
                    + firstReason);
        }
        if (decodedDatapoints > DecodeLimits.MAX_SERIES_PER_RECORD) {
            Set<SeriesId> seen = new HashSet<>();
            for (Unit u : out) {
                if (u.decoded() != null
                        && countSeries(u.decoded().datapoints(), seen) > DecodeLimits.MAX_SERIES_PER_RECORD) {
                    throw new DecodeException(
                            "KPL aggregate: its user records hold more than " + DecodeLimits.MAX_SERIES_PER_RECORD
                                    + " distinct series together (MAX_SERIES_PER_RECORD), so the whole record is poison and none of it is stored");
                }
            }
        }
        return out;
    }

    /** Series identity without building the key string: name and dimensions (a map's equality ignores its order). */
    private record SeriesId(String name, Map<String, String> dims) {}

    /** Adds the series of {@code dps} to {@code seen}, stopping once it holds more than the limit; returns its size. */
    private static int countSeries(List<Datapoint> dps, Set<SeriesId> seen) {
        for (int i = 0, n = dps.size(); i < n && seen.size() <= DecodeLimits.MAX_SERIES_PER_RECORD; i++) {
            Datapoint dp = dps.get(i);
            seen.add(new SeriesId(dp.name(), dp.dims()));
        }
        return seen.size();
    }

    /** A limit on a KPL aggregate's user records together was passed: the whole aggregate is poison. */
    private static final class AggregateLimitException extends DecodeException {
        AggregateLimitException(String reason) {
            super(reason);
        }
    }

    /**
     * Decodes one Firehose record of a CloudWatch metric stream ({@link MetricStreamDecoder}, either output format). A
     * record that cannot be read is one poison unit carrying its reason. A readable record holds many metrics of many
     * owners: a datapoint that breaks Pulse's limits (a name over {@link DatapointValidator#MAX_NAME_LENGTH}, more
     * than {@link DatapointValidator#MAX_DIMENSIONS} dimensions with the account and region, a time outside the
     * accepted window) is set aside alone, so one custom metric cannot keep the others of its record out of the
     * store. Then the record gives two units: its valid datapoints (sub-sequence -1, as a record stored whole) and a
     * poison unit (sub-sequence 0) whose reason counts and names what was set aside and says that the rest was stored.
     */
    public List<Unit> decodeMetricStreamUnits(byte[] data, String partitionKey, long referenceMillis) {
        Decoded decoded;
        try {
            if (data == null || data.length == 0) {
                throw new DecodeException("empty record");
            }
            DecodeBudget budget = DecodeBudget.forRecord();
            try {
                decoded = metricStreamDecoder.decode(data, budget);
            } catch (LimitExceeded e) {
                throw new DecodeException(e.getMessage());
            } catch (RuntimeException e) {
                throw new DecodeException("undecodable metric stream record: " + e, e);
            }
        } catch (DecodeException e) {
            return List.of(new Unit(-1, partitionKey, data, null, e.getMessage()));
        }
        List<Datapoint> dps = decoded.datapoints();
        List<Datapoint> valid = new ArrayList<>(dps.size());
        int setAside = 0;
        String first = null;
        for (int i = 0, n = dps.size(); i < n; i++) {
            try {
                validator.validate(dps.get(i), referenceMillis);
                valid.add(dps.get(i));
            } catch (ValidationException e) {
                if (setAside++ == 0) {
                    first = "invalid datapoint #" + i + " (" + dps.get(i).name() + "): " + e.getMessage();
                }
            }
        }
        if (tooManySeries(valid)) {
            return List.of(new Unit(-1, partitionKey, data, null, TOO_MANY_SERIES));
        }
        if (setAside == 0) {
            return List.of(new Unit(-1, partitionKey, data, decoded, null));
        }
        if (valid.isEmpty()) {
            String reason = setAside == 1 ? first : first + " (and " + (setAside - 1) + " more)";
            return List.of(new Unit(-1, partitionKey, data, null, reason));
        }
        String reason = setAside + " of the record's " + dps.size() + " datapoints set aside, the other " + valid.size()
                + " stored; first: " + first;
        return List.of(
                new Unit(-1, partitionKey, data, new Decoded(valid, decoded.skippedEvents()), null),
                new Unit(0, partitionKey, data, null, reason));
    }

    /** Decodes and validates against the current time; see {@link #decode(byte[], long)}. */
    public Decoded decode(byte[] data) throws DecodeException {
        return decode(data, validator.nowMillis());
    }

    /**
     * Decodes and validates, with the timestamp window centred on {@code referenceMillis} (the ingest path
     * passes the record's arrival time, so every attempt at a batch accepts the same records). Throws
     * {@link DecodeException} with the reason for a poison record.
     */
    public Decoded decode(byte[] data, long referenceMillis) throws DecodeException {
        return decode(data, referenceMillis, DecodeBudget.forRecord());
    }

    private Decoded decode(byte[] data, long referenceMillis, DecodeBudget budget) throws DecodeException {
        if (data == null || data.length == 0) {
            throw new DecodeException("empty record");
        }
        Decoded decoded;
        try {
            // OTLP first: its compression may be gzip too, so it is told apart by content (OtlpDecoder.detect).
            OtlpDecoder.Detection otlp = OtlpDecoder.detect(data, budget);
            decoded = otlp != null
                    ? otlpDecoder.decode(data, otlp, budget)
                    : CloudWatchLogsDecoder.isGzip(data)
                            ? logsDecoder.decode(data, budget)
                            : nativeDecoder.decode(data, budget);
        } catch (DecodeException e) {
            throw e;
        } catch (LimitExceeded e) {
            if (e.wholeAggregate) {
                throw new AggregateLimitException(e.getMessage());
            }
            throw new DecodeException(e.getMessage());
        } catch (RuntimeException e) {
            // Arbitrary bytes must become a poison record, never an exception that fails the batch.
            throw new DecodeException("undecodable record: " + e, e);
        }
        return validated(decoded, referenceMillis);
    }

    /** {@code decoded} if every datapoint is valid and its series are within the record's limit. */
    private Decoded validated(Decoded decoded, long referenceMillis) throws DecodeException {
        List<Datapoint> dps = decoded.datapoints();
        for (int i = 0, n = dps.size(); i < n; i++) {
            try {
                validator.validate(dps.get(i), referenceMillis);
            } catch (ValidationException e) {
                throw new DecodeException("invalid datapoint #" + i + ": " + e.getMessage());
            }
        }
        if (tooManySeries(dps)) {
            throw new DecodeException(TOO_MANY_SERIES);
        }
        return decoded;
    }

    private static final String TOO_MANY_SERIES = "more than " + DecodeLimits.MAX_SERIES_PER_RECORD
            + " distinct series in one record (MAX_SERIES_PER_RECORD)";

    private static boolean tooManySeries(List<Datapoint> dps) {
        // Only a unit with more datapoints than the series limit can have more series: ordinary records skip the count.
        return dps.size() > DecodeLimits.MAX_SERIES_PER_RECORD
                && countSeries(dps, new HashSet<>()) > DecodeLimits.MAX_SERIES_PER_RECORD;
    }
}
