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

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.pulse.codec.Gunzip;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.zip.ZipException;

/**
 * Recorded traffic to replay, one record per line (optionally gzip, by the {@code .gz} suffix):
 * <ul>
 *   <li>recorded Kinesis records: {@code {"data":"<base64>","partitionKey":"...","arrival":<epoch ms>}};</li>
 *   <li>native datapoints (NDJSON): each line is sent as one record, partition key the datapoint's name,
 *       recorded time its {@code ts}.</li>
 * </ul>
 * Every record is held in memory for the run (a run loops over its recording), so what a source may hold is bounded
 * while it is read, before it is held: {@link #MAX_LINE_BYTES}, {@link #MAX_DECOMPRESSED_BYTES} and
 * {@link #MAX_RECORDS}. A line Kinesis would refuse ({@link #MAX_RECORD_BYTES}, {@link #MAX_PARTITION_KEY_CHARS})
 * is refused here, before anything is sent. Every refusal is an {@link LoadGenRequest.InvalidRequestException} on
 * {@code source} naming the source, the line and the limit.
 */
public final class ReplaySource {

    /**
     * Kinesis' record limit: data and partition key together, 1 MiB
     * (PutRecords: "Each record in the request can be as large as 1 MiB ... including partition keys").
     */
    public static final int MAX_RECORD_BYTES = 1_048_576;
    /** Kinesis' partition key limit, in Unicode characters (and at least one). */
    public static final int MAX_PARTITION_KEY_CHARS = 256;
    /**
     * Longest line, in bytes after decompression: the largest record Kinesis takes, base64 (1,398,104 characters),
     * with its partition key and JSON around it fits with room to spare.
     */
    public static final int MAX_LINE_BYTES = 2 * 1024 * 1024;
    /**
     * Most bytes read from a source after decompression: a source is held whole (each record's data and key), so
     * this bounds the records' bytes well inside the function's heap (2,048 MB x 0.75), with {@link #MAX_RECORDS}.
     * 16 times the bundled sample.
     */
    public static final long MAX_DECOMPRESSED_BYTES = 128L * 1024 * 1024;
    /**
     * Most records a source may hold: each costs about 100 bytes of objects beyond its bytes, so a million tiny lines
     * stay near 100 MB. A run loops over its recording, so a longer run needs no larger source.
     */
    public static final int MAX_RECORDS = 1_000_000;
    /**
     * Most gzip members a {@code .gz} source may concatenate (RFC 1952 allows any number; {@code cat a.gz b.gz} makes
     * two). Read in a loop ({@link Gunzip}), each costs only its header: this bounds that work, with room for a
     * recording appended to every minute of a week.
     */
    public static final int MAX_GZIP_MEMBERS = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper()
            // A recorded line with "data" twice has no single meaning: refused, as ingest refuses duplicates.
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private static final int READ_CHUNK = 64 * 1024;

    private ReplaySource() {}

    /** Reads a bundled file: relative to {@code root} (the function's task root), or as given. */
    public static List<ReplayRecord> load(String source, Path root) {
        Path path = root.resolve(source).normalize();
        if (!path.startsWith(root.normalize())) {
            throw new LoadGenRequest.InvalidRequestException("source", "must stay inside the bundled files");
        }
        if (!Files.isRegularFile(path)) {
            throw new LoadGenRequest.InvalidRequestException("source", "no bundled file " + source);
        }
        try (InputStream in = Files.newInputStream(path)) {
            return read(in, source.endsWith(".gz"), source);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
    }

    /** Reads {@code s3://bucket/key} (gzip when the key ends in {@code .gz}). */
    public static List<ReplayRecord> loadS3(String source, software.amazon.awssdk.services.s3.S3Client s3) {
        String rest = source.substring("s3://".length());
        int slash = rest.indexOf('/');
        if (slash <= 0 || slash == rest.length() - 1) {
            throw new LoadGenRequest.InvalidRequestException("source", "must be s3://bucket/key, got " + source);
        }
        String bucket = rest.substring(0, slash);
        String key = rest.substring(slash + 1);
        try (InputStream in = s3.getObject(b -> b.bucket(bucket).key(key))) {
            return read(in, key.endsWith(".gz"), source);
        } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException
                | software.amazon.awssdk.services.s3.model.NoSuchBucketException e) {
            throw new LoadGenRequest.InvalidRequestException("source", "no object " + source);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
    }

    /** {@link #read(InputStream, boolean, String)} of a recording without a name. */
    public static List<ReplayRecord> read(InputStream raw, boolean gzip) throws IOException {
        return read(raw, gzip, "recording");
    }

    /**
     * Parses a recording named {@code source} (in error messages); a bad line, or a source past a limit, is an
     * error naming the line, before anything is sent. Reads at most {@link #MAX_DECOMPRESSED_BYTES} plus one chunk
     * and holds at most one line of {@link #MAX_LINE_BYTES} besides the records.
     */
    public static List<ReplayRecord> read(InputStream raw, boolean gzip, String source) throws IOException {
        Lines lines = new Lines(source);
        try (InputStream in = gzip ? gunzip(raw) : raw) {
            byte[] chunk = new byte[READ_CHUNK];
            int n;
            while ((n = readChunk(in, chunk, lines)) > 0) {
                lines.accept(chunk, n);
            }
            lines.finish();
        }
        if (lines.records.isEmpty()) {
            throw new LoadGenRequest.InvalidRequestException("source", source + ": the recording holds no records");
        }
        return lines.records;
    }

    /** The members of a gzip source, read in a loop (the JDK's GZIPInputStream recurses once a member). */
    private static InputStream gunzip(InputStream raw) {
        return Gunzip.stream(raw, MAX_GZIP_MEMBERS);
    }

    private static int readChunk(InputStream in, byte[] chunk, Lines lines) throws IOException {
        try {
            return in.read(chunk);
        } catch (Gunzip.TooManyMembers e) {
            throw lines.refuse("the source passes MAX_GZIP_MEMBERS " + MAX_GZIP_MEMBERS + " gzip members");
        } catch (ZipException e) {
            throw lines.refuse("not valid gzip (" + e.getMessage() + ")");
        } catch (EOFException e) {
            // Gunzip's only EOFException: the compressed data stops inside a member.
            throw lines.refuse("the gzip data ends early (a truncated or empty file?)");
        }
    }

    /** Splits the decompressed bytes into lines, counting bytes, lines and records as they come. */
    private static final class Lines {
        final String source;
        final List<ReplayRecord> records = new ArrayList<>();
        byte[] line = new byte[1024];
        int length;
        long lineNo = 1;
        long total;

        Lines(String source) {
            this.source = source;
        }

        void accept(byte[] chunk, int n) {
            total += n;
            if (total > MAX_DECOMPRESSED_BYTES) {
                throw refuse("the source passes MAX_DECOMPRESSED_BYTES " + MAX_DECOMPRESSED_BYTES
                        + " bytes after decompression");
            }
            int from = 0;
            for (int i = 0; i < n; i++) {
                if (chunk[i] == '\n') {
                    append(chunk, from, i - from);
                    parseLine();
                    length = 0;
                    lineNo++;
                    from = i + 1;
                }
            }
            append(chunk, from, n - from);
        }

        void finish() {
            if (length > 0) {
                parseLine();
            }
        }

        private void append(byte[] chunk, int from, int n) {
            if (n == 0) {
                return;
            }
            if (length + n > MAX_LINE_BYTES) {
                throw refuse("longer than MAX_LINE_BYTES " + MAX_LINE_BYTES + " bytes");
            }
            if (length + n > line.length) {
                line = Arrays.copyOf(line, Math.min(MAX_LINE_BYTES, Math.max(length + n, line.length * 2)));
            }
            System.arraycopy(chunk, from, line, length, n);
            length += n;
        }

        private void parseLine() {
            int end = length;
            if (end > 0 && line[end - 1] == '\r') {
                end--;
            }
            if (blank(line, end)) {
                return;
            }
            if (records.size() >= MAX_RECORDS) {
                throw refuse("the source passes MAX_RECORDS " + MAX_RECORDS + " records");
            }
            records.add(record(end));
        }

        private ReplayRecord record(int end) {
            JsonNode n;
            try {
                n = JSON.readTree(line, 0, end);
            } catch (JsonProcessingException e) {
                throw refuse("not JSON (" + shorten(e.getOriginalMessage()) + ")");
            } catch (IOException e) {
                throw refuse("not JSON (" + shorten(e.getMessage()) + ")");
            }
            if (n == null || !n.isObject()) {
                throw refuse("not a JSON object");
            }
            if (n.has("data") || n.has("partitionKey")) {
                String key = key(n, "partitionKey");
                String text = text(n, "data");
                // Base64's decoded size is known from its length: a record too large is refused before decoding.
                long decoded = (long) text.length() / 4 * 3;
                byte[] data;
                if (decoded - 2 > MAX_RECORD_BYTES) { // up to two '=' of padding
                    throw tooLarge(decoded - 2);
                }
                try {
                    data = Base64.getDecoder().decode(text);
                } catch (IllegalArgumentException e) {
                    throw refuse("field data is not base64 (" + shorten(e.getMessage()) + ")");
                }
                return checked(new ReplayRecord(data, key, arrival(n)));
            }
            if (n.has("name") || n.has("ts")) {
                String key = key(n, "name");
                return checked(new ReplayRecord(Arrays.copyOf(line, end), key, timestamp(n)));
            }
            throw refuse("neither a recorded Kinesis record (data, partitionKey) nor a native datapoint (name, ts)");
        }

        private ReplayRecord checked(ReplayRecord r) {
            long size = (long) r.data().length + r.partitionKey().getBytes(StandardCharsets.UTF_8).length;
            if (size > MAX_RECORD_BYTES) {
                throw tooLarge(size);
            }
            return r;
        }

        private LoadGenRequest.InvalidRequestException tooLarge(long size) {
            return refuse("a record of " + size + " bytes (data and partition key), over Kinesis' MAX_RECORD_BYTES "
                    + MAX_RECORD_BYTES);
        }

        private String key(JsonNode n, String field) {
            String key = text(n, field);
            int chars = key.codePointCount(0, key.length());
            if (chars == 0 || chars > MAX_PARTITION_KEY_CHARS) {
                throw refuse("field " + field + " has " + chars + " characters; a partition key has 1 to "
                        + "MAX_PARTITION_KEY_CHARS " + MAX_PARTITION_KEY_CHARS);
            }
            return key;
        }

        private String text(JsonNode n, String field) {
            JsonNode v = n.get(field);
            if (v == null || !v.isTextual()) {
                throw refuse("field " + field + " must be a string");
            }
            return v.textValue();
        }

        private long arrival(JsonNode n) {
            JsonNode v = n.get("arrival");
            if (v == null || v.isNull()) {
                return 0;
            }
            if (!v.isIntegralNumber() || !v.canConvertToLong()) {
                throw refuse("field arrival must be an integer (epoch milliseconds)");
            }
            return v.longValue();
        }

        /** A native datapoint's time as ingest reads it: epoch milliseconds (integer or not) or ISO-8601. */
        private long timestamp(JsonNode n) {
            JsonNode v = n.get("ts");
            if (v != null && v.isIntegralNumber() && v.canConvertToLong()) {
                return v.longValue();
            }
            if (v != null && v.isFloatingPointNumber() && Double.isFinite(v.doubleValue())) {
                return (long) v.doubleValue();
            }
            if (v != null && v.isTextual()) {
                try {
                    return java.time.OffsetDateTime.parse(v.textValue())
                            .toInstant()
                            .toEpochMilli();
                } catch (java.time.format.DateTimeParseException e) {
                    // refused below
                }
            }
            throw refuse("field ts must be epoch milliseconds or an ISO-8601 instant with an offset");
        }

        LoadGenRequest.InvalidRequestException refuse(String why) {
            return new LoadGenRequest.InvalidRequestException("source", source + " line " + lineNo + ": " + why);
        }
    }

    private static boolean blank(byte[] b, int end) {
        for (int i = 0; i < end; i++) {
            if (b[i] != ' ' && b[i] != '\t' && b[i] != '\r') {
                return false;
            }
        }
        return true;
    }

    private static String shorten(String s) {
        if (s == null) {
            return "no detail";
        }
        String first = s.lines().findFirst().orElse("");
        return first.length() > 160 ? first.substring(0, 160) + "..." : first;
    }

    /** Recorded times relative to the first record, ascending (for {@link Schedule#recorded}). */
    public static long[] offsets(List<ReplayRecord> records) {
        long first = records.get(0).recordedMillis();
        long[] out = new long[records.size()];
        long last = 0;
        for (int i = 0; i < out.length; i++) {
            last = Math.max(last, records.get(i).recordedMillis() - first); // out-of-order arrivals never run backwards
            out[i] = last;
        }
        return out;
    }
}
