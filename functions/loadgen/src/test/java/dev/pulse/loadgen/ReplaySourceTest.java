package dev.pulse.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplaySourceTest {

    @Test
    void read_whenGzipNativeAndRecordedLines_keepsDataPartitionKeysAndTimes() throws Exception {
        String recorded = "{\"data\":\"" + Base64.getEncoder().encodeToString("raw".getBytes(StandardCharsets.UTF_8))
                + "\",\"partitionKey\":\"pk-1\",\"arrival\":1795262401000}";
        String text = "{\"name\":\"a.b\",\"ts\":1795262400000,\"value\":1}\n\n" + recorded + "\n";
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gz)) {
            out.write(text.getBytes(StandardCharsets.UTF_8));
        }

        List<ReplayRecord> records = ReplaySource.read(new ByteArrayInputStream(gz.toByteArray()), true);

        assertThat(records).extracting(ReplayRecord::partitionKey).containsExactly("a.b", "pk-1");
        assertThat(new String(records.get(1).data(), StandardCharsets.UTF_8)).isEqualTo("raw");
        assertThat(ReplaySource.offsets(records)).containsExactly(0, 1000);
    }

    @Test
    void read_whenALineIsNeitherFormat_namesTheLine() {
        byte[] bad = "{\"name\":\"a\",\"ts\":1}\n{\"hello\":1}\n".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> ReplaySource.read(new ByteArrayInputStream(bad), false))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class).hasMessageContaining("line 2");
    }

    @Test
    void load_whenPathLeavesTheBundle_isRejected(@TempDir Path root) throws Exception {
        Files.writeString(root.resolve("ok.ndjson"), "{\"name\":\"a\",\"ts\":1,\"value\":1}\n");

        assertThat(ReplaySource.load("ok.ndjson", root)).hasSize(1);
        assertThatThrownBy(() -> ReplaySource.load("../../etc/passwd", root))
                .isInstanceOf(LoadGenRequest.InvalidRequestException.class).hasMessageContaining("source");
    }
}
