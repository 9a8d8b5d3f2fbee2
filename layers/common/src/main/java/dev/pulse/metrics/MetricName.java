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
package dev.pulse.metrics;

import java.util.Locale;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;

/**
 * A metric a function emits, implemented by each function's enum of metric names: the CloudWatch name is the
 * constant's name in PascalCase ({@code RECORDS_IN} -> {@code RecordsIn}), the unit {@code Count} unless a
 * constant overrides {@link #unit()}.
 */
public interface MetricName {

    /** The CloudWatch metric name, e.g. {@code RecordsIn}. */
    default String metricName() {
        StringBuilder sb = new StringBuilder();
        for (String word : ((Enum<?>) this).name().split("_", -1)) {
            if (word.isEmpty()) {
                continue; // a doubled, leading or trailing underscore adds no word
            }
            sb.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
        }
        return sb.toString();
    }

    default MetricUnit unit() {
        return MetricUnit.COUNT;
    }
}
