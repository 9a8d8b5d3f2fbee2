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
package dev.pulse.query;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The response writer: values remembered as text by cached buckets must print exactly as computed ones. */
class QueryHandlerJsonTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static double[] values() {
        SplittableRandom rnd = new SplittableRandom(7);
        double[] v = new double[2000];
        for (int i = 0; i < v.length; i++) {
            v[i] = switch (i % 8) {
                case 0 -> Double.NaN; // an empty bucket
                case 1 -> rnd.nextLong(1, 1_000_000); // a count
                case 2 -> 0.1 + 0.2;
                case 3 -> -rnd.nextDouble() * 1e-300;
                case 4 -> Double.MAX_VALUE;
                case 5 -> Double.POSITIVE_INFINITY; // a sum past the double range: null
                default -> Math.pow(10, rnd.nextDouble() * 40 - 20);
            };
        }
        return v;
    }

    private static String json(double[] v, String[] texts) {
        NativeQuery request = new NativeQuery(
                List.of(new SeriesSpec("m", Map.of("k", "v"))),
                0,
                v.length * 60_000L,
                60,
                List.of(Stat.parse("avg")),
                0);
        NativeResult.SeriesValues s = new NativeResult.SeriesValues(
                request.series().get(0), Map.of("avg", v), texts == null ? Map.of() : Map.of("avg", texts));
        return QueryHandler.toJson(new NativeResult(List.of(0L), 60, List.of(s), List.of(), null), request);
    }

    @Test
    void toJson_whenValuesComeAsRememberedText_writesTheSameDocumentAsFromNumbers() throws Exception {
        double[] v = values();
        String[] texts = new String[v.length];
        for (int i = 0; i < v.length; i++) {
            texts[i] = Double.isFinite(v[i]) ? Double.toString(v[i]) : null; // what PeriodBucket.text remembers
        }

        String fromNumbers = json(v, null);
        String fromTexts = json(v, texts);

        assertThat(fromTexts).isEqualTo(fromNumbers);
        JsonNode avg =
                JSON.readTree(fromTexts).get("series").get(0).get("values").get("avg");
        assertThat(avg).hasSize(v.length);
        for (int i = 0; i < v.length; i++) {
            if (Double.isFinite(v[i])) {
                assertThat(avg.get(i).doubleValue()).isEqualTo(v[i]);
            } else {
                assertThat(avg.get(i).isNull()).isTrue();
            }
        }
    }
}
