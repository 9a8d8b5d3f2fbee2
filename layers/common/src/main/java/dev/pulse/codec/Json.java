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

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The tree-reading JSON mapper of the decoders that build trees (CloudWatch Logs payloads, EMF documents, OTLP/JSON),
 * with the limits of {@link DecodeLimits}: Jackson counts tokens, depth and string lengths as it reads, so a document
 * that passes one fails at that point, before its tree is built. A key given twice in one object is an error (which
 * value was meant cannot be known); trailing tokens too.
 */
final class Json {

    static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
            .maxTokenCount(DecodeLimits.MAX_JSON_TOKENS)
            .maxNestingDepth(DecodeLimits.MAX_JSON_DEPTH)
            .maxStringLength(DecodeLimits.MAX_JSON_STRING_CHARS)
            .maxNumberLength(DecodeLimits.MAX_JSON_NUMBER_CHARS)
            .build();

    static final ObjectMapper MAPPER = new ObjectMapper(
                    JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build())
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {}

    /** Jackson's message, with the {@link DecodeLimits} name of the limit when a constraint was passed. */
    static String reason(com.fasterxml.jackson.core.JacksonException e) {
        String m = e.getOriginalMessage();
        if (e instanceof com.fasterxml.jackson.core.exc.StreamConstraintsException) {
            String limit = m.contains("Token count")
                    ? "MAX_JSON_TOKENS"
                    : m.contains("nesting depth")
                            ? "MAX_JSON_DEPTH"
                            : m.contains("String value length")
                                    ? "MAX_JSON_STRING_CHARS"
                                    : m.contains("Number value length") ? "MAX_JSON_NUMBER_CHARS" : "a JSON limit";
            return m + " (" + limit + ")";
        }
        return m;
    }
}
