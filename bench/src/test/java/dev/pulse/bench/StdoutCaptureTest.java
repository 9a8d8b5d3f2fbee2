package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StdoutCaptureTest {

    @Test
    void emfDocuments_whenLogLinesAndOneEmfDocument_returnsOnlyTheDocument() {
        String text = """
                {"level":"INFO","message":"batch ingested","records":10}
                plain text line
                {"_aws":{"Timestamp":1,"CloudWatchMetrics":[]},"DatapointsIn":50.0}
                {not json
                """;

        assertThat(StdoutCapture.emfDocuments(text))
                .singleElement()
                .satisfies(doc -> assertThat(doc.get("DatapointsIn").asLong()).isEqualTo(50));
    }

    @Test
    void run_whenBodyPrints_capturesItAndRestoresSystemOut() throws Exception {
        var before = System.out;

        StdoutCapture.Captured<Integer> out = StdoutCapture.run(() -> {
            System.out.println("{\"_aws\":{},\"ItemsWritten\":3}");
            return 7;
        });

        assertThat(System.out).isSameAs(before);
        assertThat(out.value()).isEqualTo(7);
        assertThat(out.emfDocuments()).singleElement()
                .satisfies(doc -> assertThat(doc.get("ItemsWritten").asInt()).isEqualTo(3));
    }
}
