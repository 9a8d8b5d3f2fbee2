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

/**
 * A request refused, with the HTTP status the protocol's clients expect: 400 for a payload that can never be stored
 * (not retried), 413 for one over a size limit, 415 for an unknown content type or encoding, 503 when the records could
 * not be put on the stream in time (retried by both protocols' clients).
 */
public final class PushException extends Exception {

    private final int status;

    public PushException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }

    static PushException badRequest(String message) {
        return new PushException(400, message);
    }

    static PushException tooLarge(String message) {
        return new PushException(413, message);
    }

    static PushException unsupported(String message) {
        return new PushException(415, message);
    }

    static PushException unavailable(String message) {
        return new PushException(503, message);
    }
}
