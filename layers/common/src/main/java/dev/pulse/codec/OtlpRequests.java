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

import com.google.protobuf.CodedInputStream;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;

/**
 * An OTLP metrics export request read whole from either encoding, for callers outside the record decoders (the push
 * endpoint reads what an OTLP/HTTP client posts with it). JSON follows the same rules as a Kinesis record's
 * {@code otlp_json} ({@link OtlpJson}: tokens, depth and string lengths bounded while reading); protobuf is parsed
 * with protobuf-java's default recursion limit (100 nested messages).
 */
public final class OtlpRequests {

    private OtlpRequests() {}

    /** OTLP/JSON; the message names the JSON path of the first bad field. */
    public static ExportMetricsServiceRequest parseJson(byte[] json) throws DecodeException {
        return OtlpJson.parse(json);
    }

    /** OTLP protobuf ({@code length} bytes of {@code data} from 0). */
    public static ExportMetricsServiceRequest parseProto(byte[] data, int length) throws DecodeException {
        try {
            CodedInputStream in = CodedInputStream.newInstance(data, 0, length);
            ExportMetricsServiceRequest request = ExportMetricsServiceRequest.parseFrom(in);
            in.checkLastTagWas(0);
            return request;
        } catch (java.io.IOException e) {
            throw new DecodeException("OTLP protobuf: not a valid ExportMetricsServiceRequest: " + e.getMessage(), e);
        }
    }
}
