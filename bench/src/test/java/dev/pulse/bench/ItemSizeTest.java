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
package dev.pulse.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.core.SdkBytes;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class ItemSizeTest {

    @Test
    void of_whenStrings_countsNamesAndUtf8Bytes() {
        // As DynamoDB Local bills it: pk(2)+1 + sk(2)+1 + x(1)+1017 = 1,024 bytes, one write unit; one byte more, two.
        Map<String, AttributeValue> item = Map.of(
                "pk",
                AttributeValue.fromS("q"),
                "sk",
                AttributeValue.fromS("1"),
                "x",
                AttributeValue.fromS("y".repeat(1017)));

        assertThat(ItemSize.of(item)).isEqualTo(1024);
        assertThat(ItemSize.writeUnits(ItemSize.of(item))).isEqualTo(1);
        assertThat(ItemSize.writeUnits(ItemSize.of(Map.of(
                        "pk",
                        AttributeValue.fromS("q"),
                        "sk",
                        AttributeValue.fromS("1"),
                        "x",
                        AttributeValue.fromS("y".repeat(1018))))))
                .isEqualTo(2);
    }

    @Test
    void of_whenMultibyteCharacters_countsTheirUtf8Bytes() {
        assertThat(ItemSize.of(Map.of("é", AttributeValue.fromS("日本")))).isEqualTo(2 + 6);
    }

    @ParameterizedTest
    @CsvSource({
        "7, 2",
        "12, 2",
        "123, 3",
        "1234, 3",
        "-12.50, 3",
        "0.001, 2",
        "1000000, 2",
        "1E+10, 2",
        "0, 2",
        "3.141592653589793, 9",
        "1795219200000, 5"
    })
    void number_whenSignificantDigits_isOneBytePerTwoPlusOne(String n, long expected) {
        assertThat(ItemSize.number(n)).isEqualTo(expected);
    }

    @Test
    void of_whenBinaryBooleanAndNull_countsRawBytesAndOneByte() {
        Map<String, AttributeValue> item = Map.of(
                "b",
                AttributeValue.fromB(SdkBytes.fromByteArray(new byte[37])),
                "t",
                AttributeValue.fromBool(true),
                "n",
                AttributeValue.fromNul(true));

        assertThat(ItemSize.of(item)).isEqualTo(1 + 37 + 1 + 1 + 1 + 1);
    }

    @Test
    void of_whenMapsAndLists_addsThreeBytesEachAndOneAnElement() {
        Map<String, AttributeValue> item = Map.of(
                "m", AttributeValue.fromM(Map.of("ab", AttributeValue.fromS("xyz"))),
                "l", AttributeValue.fromL(List.of(AttributeValue.fromS("x"), AttributeValue.fromN("12"))),
                "e", AttributeValue.fromM(Map.of()));

        // m: 1 + 3 + (1 + 2 + 3); l: 1 + 3 + (1 + 1) + (1 + 2); e: 1 + 3
        assertThat(ItemSize.of(item)).isEqualTo(10 + 9 + 4);
    }

    @Test
    void of_whenSets_sumsTheElements() {
        Map<String, AttributeValue> item = Map.of(
                "ss", AttributeValue.fromSs(List.of("a", "bcd")), "ns", AttributeValue.fromNs(List.of("1", "12345")));

        assertThat(ItemSize.of(item)).isEqualTo(2 + 4 + 2 + (2 + 4));
    }

    @Test
    void stored_whenAnyItem_addsTheHundredBytesOfIndexing() {
        assertThat(ItemSize.stored(Map.of("pk", AttributeValue.fromS("a")))).isEqualTo(103);
    }

    @ParameterizedTest
    @CsvSource({
        "0, true, 1",
        "1, true, 1",
        "4096, true, 1",
        "4097, true, 2",
        "4097, false, 1",
        "40960, false, 5",
        "100, false, 0.5"
    })
    void readUnits_whenSizes_roundUpTo4KbAndHalveWhenEventuallyConsistent(
            long bytes, boolean consistent, double units) {
        assertThat(ItemSize.readUnits(bytes, consistent)).isEqualTo(units);
    }
}
