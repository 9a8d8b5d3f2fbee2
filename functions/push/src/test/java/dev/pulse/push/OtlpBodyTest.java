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
package dev.pulse.push;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.pulse.testing.Gzip;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class OtlpBodyTest {

    private static final long NOW = 1_764_000_000_000L;

    @Test
    void read_whenGzipBomb_refusesWith413WhileInflating() {
        // 64 MiB of zeros in about 64 KB: refused once 1 MiB is inflated.
        byte[] bomb = Gzip.gzip(new byte[64 * 1024 * 1024]);
        assertThat(bomb.length).isLessThan(100_000);

        assertThatThrownBy(() -> OtlpBody.read(bomb, OtlpBody.Encoding.PROTOBUF, "gzip", 1024 * 1024))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("MAX_DECOMPRESSED_BYTES")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(413);
    }

    @Test
    void read_whenGzipProtobuf_returnsTheRequest() throws Exception {
        byte[] body = Gzip.gzip(OtlpRequests.gauge("cpu", 3, NOW).toByteArray());

        assertThat(OtlpBody.read(body, OtlpBody.Encoding.PROTOBUF, "GZIP", 1 << 20))
                .isEqualTo(OtlpRequests.gauge("cpu", 3, NOW));
    }

    @Test
    void read_whenJson_returnsTheSameRequestAsProtobuf() throws Exception {
        String json = "{\"resourceMetrics\":[{\"resource\":{\"attributes\":[{\"key\":\"service.name\",\"value\":"
                + "{\"stringValue\":\"checkout\"}}]},\"scopeMetrics\":[{\"metrics\":[{\"name\":\"cpu\",\"gauge\":"
                + "{\"dataPoints\":[{\"attributes\":[{\"key\":\"i\",\"value\":{\"stringValue\":\"0\"}}],"
                + "\"timeUnixNano\":\"" + NOW * 1_000_000L + "\",\"asDouble\":0}]}}]}]}]}";

        assertThat(OtlpBody.read(json.getBytes(StandardCharsets.UTF_8), OtlpBody.Encoding.JSON, null, 1 << 20))
                .isEqualTo(OtlpRequests.gauge("cpu", 1, NOW));
    }

    @Test
    void read_whenProtobufTruncated_refusesWith400() {
        byte[] whole = OtlpRequests.gauge("cpu", 10, NOW).toByteArray();
        byte[] cut = Arrays.copyOf(whole, whole.length - 3);

        assertThatThrownBy(() -> OtlpBody.read(cut, OtlpBody.Encoding.PROTOBUF, null, 1 << 20))
                .isInstanceOf(PushException.class)
                .hasMessageContaining("ExportMetricsServiceRequest")
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(400);
    }

    @ParameterizedTest
    @CsvSource({"gzip,400", "br,415", "deflate,415"})
    void read_whenEncodingBadOrUnsupported_refuses(String encoding, int status) {
        byte[] notGzip = "plainly not gzip".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> OtlpBody.read(notGzip, OtlpBody.Encoding.PROTOBUF, encoding, 1 << 20))
                .isInstanceOf(PushException.class)
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(status);
    }

    @Test
    void read_whenJsonDeeplyNested_refusesWith400() {
        String deep = "{\"resourceMetrics\":" + "[".repeat(10_000) + "]".repeat(10_000) + "}";

        assertThatThrownBy(() ->
                        OtlpBody.read(deep.getBytes(StandardCharsets.UTF_8), OtlpBody.Encoding.JSON, null, 1 << 20))
                .isInstanceOf(PushException.class)
                .extracting(e -> ((PushException) e).status())
                .isEqualTo(400);
    }

    @ParameterizedTest
    @CsvSource({
        "application/x-protobuf,PROTOBUF",
        "application/json; charset=utf-8,JSON",
        "Application/JSON,JSON",
    })
    void encoding_whenKnownContentType_namesIt(String contentType, OtlpBody.Encoding expected) {
        assertThat(OtlpBody.encoding(contentType)).isEqualTo(expected);
    }

    @Test
    void encoding_whenUnknown_isNull() {
        assertThat(OtlpBody.encoding("text/plain")).isNull();
        assertThat(OtlpBody.encoding(null)).isNull();
    }
}
