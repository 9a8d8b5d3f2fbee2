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

/** Invokes the mapping's function synchronously, as the event source mapping does (RequestResponse). */
@FunctionalInterface
public interface FunctionInvoker {

    /**
     * Sends {@code payload} (the event JSON) and waits for the outcome.
     *
     * @return the function's response, or its error (an exception it threw, a timeout, a crash)
     */
    InvokeResult invoke(byte[] payload) throws InterruptedException;
}
