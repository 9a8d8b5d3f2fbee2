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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StdoutCaptureTest {

    private static final String LOG = "{\"level\":\"INFO\",\"message\":\"batch ingested\"}";
    private static final String EMF = "{\"_aws\":{\"Timestamp\":1,\"CloudWatchMetrics\":[]},\"Records\":3}";

    @Test
    void lines_whenTheBodyPrints_returnsItsLinesAndRestoresStdout() {
        PrintStream before = System.out;

        assertThat(StdoutCapture.lines(() -> {
                    System.out.println(LOG);
                    System.out.println(EMF);
                }))
                .containsExactly(LOG, EMF);
        assertThat(System.out).isSameAs(before);
    }

    @Test
    void lines_whenTheBodyPrintsNothing_isEmpty() {
        assertThat(StdoutCapture.lines(() -> {})).isEmpty();
    }

    @Test
    void install_whenLogAndEmfLinesArePrinted_countsTheEmfDocumentsApart() {
        String second = EMF.replace("3", "4");
        try (StdoutCapture capture = StdoutCapture.install()) {
            System.out.println(LOG);
            System.out.println(EMF);
            System.out.print(second + "\n");

            long utf8 = (LOG + "\n" + EMF + "\n" + second + "\n").getBytes(StandardCharsets.UTF_8).length;
            assertThat(capture.bytes()).isEqualTo(utf8);
            assertThat(capture.emfDocuments()).isEqualTo(2);
            assertThat(capture.emfBytes()).isEqualTo(EMF.length() + 1 + second.length() + 1);
            assertThat(capture.lastEmf()).isEqualTo(second);
        }
    }

    @Test
    void text_whenTheCaptureOnlyCounts_refuses() {
        try (StdoutCapture capture = StdoutCapture.install()) {
            System.out.println(LOG);
            assertThatThrownBy(capture::text)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("keepingText");
        }
    }

    @Test
    void close_whenCapturesAreNested_restoresEachPreviousStream() {
        PrintStream before = System.out;
        try (StdoutCapture outer = StdoutCapture.keepingText()) {
            try (StdoutCapture inner = StdoutCapture.keepingText()) {
                System.out.println("inner");
                assertThat(inner.lines()).containsExactly("inner");
            }
            System.out.println("outer");
            assertThat(outer.lines()).containsExactly("outer");
        }
        assertThat(System.out).isSameAs(before);
    }
}
