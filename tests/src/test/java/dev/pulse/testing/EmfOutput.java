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
package dev.pulse.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a handler prints to stdout while it runs in process, where Lambda would hand it to CloudWatch Logs: the
 * EMF documents (lines whose first member is {@code _aws}) parsed, and the threads that wrote to stdout.
 *
 * @param documents the EMF documents, in the order printed
 * @param writers   every thread that wrote to stdout, EMF or not
 */
public record EmfOutput(List<JsonNode> documents, Set<Thread> writers) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A body that may throw (the handler's exception is part of what a test looks at). */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /** Runs {@code body} with stdout captured; what it threw is rethrown after stdout is restored. */
    public static EmfOutput during(Body body) throws Exception {
        List<String> lines;
        Set<Thread> writers;
        try (StdoutCapture capture = StdoutCapture.keepingText()) {
            body.run();
            System.out.flush();
            lines = capture.lines();
            writers = capture.writers();
        }
        List<JsonNode> documents = new ArrayList<>();
        for (String line : lines) {
            if (line.startsWith("{\"_aws\"")) {
                try {
                    documents.add(JSON.readTree(line));
                } catch (java.io.IOException e) {
                    throw new UncheckedIOException("an EMF line that is not JSON: " + line, e);
                }
            }
        }
        return new EmfOutput(List.copyOf(documents), writers);
    }

    /** The only document printed; fails when there is not exactly one. */
    public JsonNode single() {
        if (documents.size() != 1) {
            throw new AssertionError("expected one EMF document, got " + documents.size() + ": " + documents);
        }
        return documents.get(0);
    }
}
