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
package dev.pulse.local.template;

/**
 * One {@code HttpApi} event of a function.
 *
 * @param functionId logical id of the function the route invokes
 * @param method     upper-case HTTP method, {@code ANY} when the event has none
 * @param path       the route's path, {@code $default} when the event has none (the catch-all route)
 * @param apiId      logical id of the API ({@code ApiId}), or {@code ServerlessHttpApi}, the API SAM creates for
 *                   events without one
 */
public record RouteSpec(String functionId, String method, String path, String apiId) {}
