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

/**
 * A decode limit ({@link DecodeLimits}) was passed deep inside a decoder, where the checked {@link DecodeException}
 * cannot be thrown (a list's {@code add}). {@link RecordDecoder} turns it into poison: of the unit, or of the whole
 * KPL aggregate when {@link #wholeAggregate} (a limit on the aggregate's user records together).
 */
final class LimitExceeded extends RuntimeException {

    final boolean wholeAggregate;

    LimitExceeded(String reason, boolean wholeAggregate) {
        super(reason, null, false, false);
        this.wholeAggregate = wholeAggregate;
    }
}
