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
package dev.pulse.rules;

import dev.pulse.rules.internal.GoTemplate;
import java.util.Map;
import java.util.SortedMap;

/**
 * {@code alert: <name>}: every sample of the expression is an alert, pending from its first evaluation and firing
 * once it has lasted {@code forMillis}; a firing alert whose sample is gone keeps firing for
 * {@code keepFiringForMillis}. {@code labels} and {@code annotations} are templates (their parsed forms are kept so
 * a rule that loaded never fails to parse later).
 */
public record AlertingRule(
        String name,
        String expr,
        long forMillis,
        long keepFiringForMillis,
        SortedMap<String, String> labels,
        SortedMap<String, String> annotations,
        Map<String, GoTemplate> labelTemplates,
        Map<String, GoTemplate> annotationTemplates)
        implements Rule {}
