package dev.pulse.loadgen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPInputStream;

/**
 * Recorded traffic to replay, one record per line (optionally gzip, by the {@code .gz} suffix):
 * <ul>
 *   <li>recorded Kinesis records: {@code {"data":"<base64>","partitionKey":"...","arrival":<epoch ms>}};</li>
 *   <li>native datapoints (NDJSON): each line is sent as one record, partition key the datapoint's name,
 *       recorded time its {@code ts}.</li>
 * </ul>
 */
public final class ReplaySource {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ReplaySource() {
    }

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
            return read(in, source.endsWith(".gz"));
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
            return read(in, key.endsWith(".gz"));
        } catch (software.amazon.awssdk.services.s3.model.NoSuchKeyException
                 | software.amazon.awssdk.services.s3.model.NoSuchBucketException e) {
            throw new LoadGenRequest.InvalidRequestException("source", "no object " + source);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
    }

    /** Parses a recording; bad lines are an error naming the line, before anything is sent. */
    public static List<ReplayRecord> read(InputStream raw, boolean gzip) throws IOException {
        List<ReplayRecord> out = new ArrayList<>();
        try (BufferedReader r = new BufferedReader(new InputStreamReader(gzip ? new GZIPInputStream(raw) : raw,
                StandardCharsets.UTF_8))) {
            String line;
            int no = 0;
            while ((line = r.readLine()) != null) {
                no++;
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n;
                try {
                    n = JSON.readTree(line);
                } catch (IOException e) {
                    throw new LoadGenRequest.InvalidRequestException("source", "line " + no + " is not JSON");
                }
                if (n.has("data") && n.has("partitionKey")) {
                    out.add(new ReplayRecord(Base64.getDecoder().decode(n.get("data").asText()),
                            n.get("partitionKey").asText(), n.path("arrival").asLong(0)));
                } else if (n.has("name") && n.has("ts")) {
                    out.add(new ReplayRecord(line.getBytes(StandardCharsets.UTF_8), n.get("name").asText(),
                            n.get("ts").asLong(0)));
                } else {
                    throw new LoadGenRequest.InvalidRequestException("source", "line " + no
                            + " is neither a recorded Kinesis record nor a native datapoint");
                }
            }
        }
        if (out.isEmpty()) {
            throw new LoadGenRequest.InvalidRequestException("source", "the recording holds no records");
        }
        return out;
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
