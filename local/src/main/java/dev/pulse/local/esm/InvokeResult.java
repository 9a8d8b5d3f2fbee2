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
package dev.pulse.local.esm;

/**
 * The outcome of one invocation as the Lambda service reports it.
 *
 * @param payload       the response body (the function's return value as JSON; for an error, Lambda's error JSON)
 * @param functionError null on success; {@code Unhandled} when the function threw, timed out or crashed
 * @param requestId     the invocation's request id
 */
public record InvokeResult(byte[] payload, String functionError, String requestId) {

    public boolean failed() {
        return functionError != null;
    }
}
