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
package dev.pulse.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class SeriesKeyTest {

    private static Map<String, String> ordered(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void of_whenNoDimensions_returnsNameWithEmptyBraces() {
        assertThat(SeriesKey.of("checkout.latency", Map.of())).isEqualTo("checkout.latency{}");
    }

    @Test
    void of_whenDimensions_sortsByKey() {
        assertThat(SeriesKey.of("checkout.latency", ordered("service", "checkout", "op", "Pay", "az", "use1")))
                .isEqualTo("checkout.latency{az=use1,op=Pay,service=checkout}");
    }

    @Test
    void of_whenSameDimensionsInsertedInEveryOrder_returnsOneKey() {
        List<String> keys = new ArrayList<>(List.of("service", "op", "az", "Region", "b", "a"));
        Set<String> seriesKeys = new HashSet<>();
        Random random = new Random(42);
        for (int i = 0; i < 50; i++) {
            Collections.shuffle(keys, random);
            Map<String, String> dims = new LinkedHashMap<>();
            keys.forEach(k -> dims.put(k, "v-" + k));
            seriesKeys.add(SeriesKey.of("m", dims));
        }
        seriesKeys.add(SeriesKey.of(
                "m",
                new TreeMap<>(Map.of(
                        "service",
                        "v-service",
                        "op",
                        "v-op",
                        "az",
                        "v-az",
                        "Region",
                        "v-Region",
                        "b",
                        "v-b",
                        "a",
                        "v-a"))));
        seriesKeys.add(SeriesKey.of(
                "m",
                new HashMap<>(Map.of(
                        "service",
                        "v-service",
                        "op",
                        "v-op",
                        "az",
                        "v-az",
                        "Region",
                        "v-Region",
                        "b",
                        "v-b",
                        "a",
                        "v-a"))));

        assertThat(seriesKeys).containsExactly("m{Region=v-Region,a=v-a,az=v-az,b=v-b,op=v-op,service=v-service}");
    }

    @Test
    void seriesKey_whenDatapointsDifferOnlyInDimensionOrder_areEqual() {
        Datapoint a = new Datapoint("m", ordered("x", "1", "y", "2"), 0, 1, null);
        Datapoint b = new Datapoint("m", ordered("y", "2", "x", "1"), 0, 1, null);

        assertThat(a.seriesKey()).isEqualTo(b.seriesKey()).isEqualTo("m{x=1,y=2}");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            quoteCharacter = '"',
            value = {
                "a{b}   | a\\{b\\}{}",
                "a,b=c  | a\\,b\\=c{}",
                "a\\b   | a\\\\b{}",
                "\\     | \\\\{}",
                "plain  | plain{}",
            })
    void of_whenNameHasSpecialCharacters_escapesThem(String name, String expected) {
        assertThat(SeriesKey.of(name, Map.of())).isEqualTo(expected);
    }

    @Test
    void of_whenDimensionKeyAndValueHaveSpecialCharacters_escapesBoth() {
        assertThat(SeriesKey.of("m", Map.of("k=1,", "{v}\\"))).isEqualTo("m{k\\=1\\,=\\{v\\}\\\\}");
    }

    /** Pairs that a naive, unescaped key would have collapsed into one string. */
    static Stream<Arguments> collidingWithoutEscaping() {
        return Stream.of(
                Arguments.of("a,b=c", Map.of(), "a", Map.of("b", "c")),
                Arguments.of("m", Map.of("a", "1,b=2"), "m", ordered("a", "1", "b", "2")),
                Arguments.of("m", Map.of("a=1", "2"), "m", Map.of("a", "1=2")),
                Arguments.of("m{}", Map.of(), "m", Map.of()),
                Arguments.of("m{a=1}", Map.of(), "m", Map.of("a", "1")),
                Arguments.of("m", Map.of("a", "1}"), "m", Map.of("a", "1")),
                Arguments.of("m", Map.of("a", "x\\"), "m", Map.of("a", "x\\\\")),
                Arguments.of("m\\", Map.of("a", "1"), "m", Map.of("\\a", "1")),
                Arguments.of("m", Map.of("a", "\\,b=1"), "m", ordered("a", "\\", "b", "1")),
                Arguments.of("m", ordered("a", "1,b", "c", "2"), "m", ordered("a", "1", "b,c", "2")));
    }

    @ParameterizedTest(name = "[{index}] {0}{1} vs {2}{3}")
    @MethodSource("collidingWithoutEscaping")
    void of_whenInputsDiffer_returnsDistinctKeys(
            String name1, Map<String, String> dims1, String name2, Map<String, String> dims2) {
        assertThat(SeriesKey.of(name1, dims1)).isNotEqualTo(SeriesKey.of(name2, dims2));
    }

    @Test
    void of_whenManyRandomInputsOverSpecialAlphabet_isInjective() {
        // Small alphabet of mostly delimiters: collisions, if escaping were wrong, show up quickly.
        char[] alphabet = {'a', '{', '}', '=', ',', '\\'};
        Random random = new Random(7);
        Map<String, List<Object>> seen = new HashMap<>();
        for (int i = 0; i < 20_000; i++) {
            String name = randomText(random, alphabet, 1 + random.nextInt(3));
            Map<String, String> dims = new TreeMap<>();
            int n = random.nextInt(3);
            for (int d = 0; d < n; d++) {
                dims.put(
                        randomText(random, alphabet, 1 + random.nextInt(2)),
                        randomText(random, alphabet, random.nextInt(3)));
            }
            List<Object> identity = List.of(name, dims);
            List<Object> previous = seen.putIfAbsent(SeriesKey.of(name, dims), identity);
            if (previous != null) {
                assertThat(previous)
                        .as("two inputs share key %s", SeriesKey.of(name, dims))
                        .isEqualTo(identity);
            }
        }
        assertThat(seen).hasSizeGreaterThan(1_000);
    }

    private static String randomText(Random random, char[] alphabet, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(alphabet[random.nextInt(alphabet.length)]);
        }
        return sb.toString();
    }
}
