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
package dev.pulse.local.emulator;

/**
 * A backend could not start for a reason the user fixes outside the program (a missing install, a port in use,
 * an unreachable LocalStack): the message is one line saying what is missing and how to get it, and the command
 * exits with status 2 without a stack trace.
 */
public final class BackendStartException extends Exception {

    public BackendStartException(String message) {
        super(message);
    }

    public BackendStartException(String message, Throwable cause) {
        super(message, cause);
    }
}
