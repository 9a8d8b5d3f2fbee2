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
package dev.pulse.query.promql.internal;

/** PromQL's binary operators on two numbers (IEEE 754, as Go computes them); comparisons give 1 or 0. */
final class Arithmetic {

    private Arithmetic() {}

    static double apply(String op, double a, double b) {
        return switch (op) {
            case "+" -> a + b;
            case "-" -> a - b;
            case "*" -> a * b;
            case "/" -> a / b;
            case "%" -> a % b; // Go's math.Mod: the result has the sign of a, as Java's %
            case "^" -> Math.pow(a, b);
            case "atan2" -> Math.atan2(a, b);
            default -> compare(op, a, b) ? 1 : 0;
        };
    }

    /** A comparison as Go computes it: every comparison with NaN is false, except {@code !=}. */
    static boolean compare(String op, double a, double b) {
        return switch (op) {
            case "==" -> a == b;
            case "!=" -> a != b;
            case ">" -> a > b;
            case "<" -> a < b;
            case ">=" -> a >= b;
            case "<=" -> a <= b;
            default -> throw new IllegalArgumentException("operator " + op);
        };
    }
}
