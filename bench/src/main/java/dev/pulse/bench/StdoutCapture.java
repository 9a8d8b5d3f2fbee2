package dev.pulse.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import software.amazon.cloudwatchlogs.emf.config.EnvironmentConfigurationProvider;
import software.amazon.cloudwatchlogs.emf.environment.Environments;

/**
 * What a handler prints while it runs: its EMF document and structured log lines go to stdout, as in Lambda.
 * Capturing them keeps the benchmark's own output to its lines, and lets it check the metrics the function
 * reported against what it stored.
 */
final class StdoutCapture {

    private static final ObjectMapper JSON = new ObjectMapper();

    private StdoutCapture() {
    }

    /** A body's result and everything it printed. */
    record Captured<T>(T value, String text) {

        List<JsonNode> emfDocuments() {
            return StdoutCapture.emfDocuments(text);
        }
    }

    /**
     * Makes the EMF library print its documents to stdout, as it does in Lambda. Outside Lambda it would detect no
     * environment and send them to a CloudWatch agent on 127.0.0.1:25888, where nothing listens, and lose them (the
     * test suites set AWS_EMF_ENVIRONMENT=Local for the same reason). Must run before the first document is flushed:
     * the library keeps the environment it resolved for the life of the JVM.
     */
    static void emfToStdout() {
        EnvironmentConfigurationProvider.getConfig().setEnvironmentOverride(Environments.Local);
    }

    /** Runs {@code body} with System.out redirected to memory; System.out is restored however it ends. */
    static <T> Captured<T> run(Callable<T> body) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(8192);
        PrintStream capture = new PrintStream(bytes, true, StandardCharsets.UTF_8);
        System.setOut(capture);
        T value;
        try {
            value = body.call();
        } finally {
            System.setOut(original);
            capture.flush();
        }
        return new Captured<>(value, bytes.toString(StandardCharsets.UTF_8));
    }

    /** The EMF documents among the lines of {@code text}: JSON objects with an {@code _aws} member. */
    static List<JsonNode> emfDocuments(String text) {
        List<JsonNode> docs = new ArrayList<>();
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (!l.startsWith("{")) {
                continue;
            }
            try {
                JsonNode n = JSON.readTree(l);
                if (n.isObject() && n.has("_aws")) {
                    docs.add(n);
                }
            } catch (IOException e) {
                // A log line that merely starts with a brace is not a metrics document.
            }
        }
        return docs;
    }
}
