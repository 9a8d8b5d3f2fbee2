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
package dev.pulse.store.write;

import dev.pulse.store.read.LatestPartials;

/**
 * A newer attempt has claimed the shard since this attempt started: this attempt is stale and must fail its batch
 * without committing. Its partials carry an older generation, so readers prefer the newer attempt's wherever both
 * wrote the same slot ({@link LatestPartials}), and the records it covered are stored by the newer attempt.
 */
public final class SupersededException extends RuntimeException {

    public SupersededException(String message) {
        super(message, null, false, false);
    }
}
