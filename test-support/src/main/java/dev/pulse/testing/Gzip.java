package dev.pulse.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.zip.GZIPOutputStream;

/** Gzip payloads as producers send them (CloudWatch Logs subscriptions, gzipped recordings): one member. */
public final class Gzip {

    private Gzip() {
    }

    public static byte[] gzip(byte[] data) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 32);
        try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
            gz.write(data);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** {@code text} as UTF-8, gzipped. */
    public static byte[] gzip(String text) {
        return gzip(text.getBytes(StandardCharsets.UTF_8));
    }
}
