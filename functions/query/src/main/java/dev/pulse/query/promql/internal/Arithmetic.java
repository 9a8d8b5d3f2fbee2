package dev.pulse.query.promql.internal;

/** PromQL's arithmetic operators on two numbers (IEEE 754, as Go computes them). */
final class Arithmetic {

    private Arithmetic() {
    }

    static double apply(char op, double a, double b) {
        return switch (op) {
            case '+' -> a + b;
            case '-' -> a - b;
            case '*' -> a * b;
            case '/' -> a / b;
            case '%' -> a % b; // Go's math.Mod: the result has the sign of a, as Java's %
            case '^' -> Math.pow(a, b);
            default -> throw new IllegalArgumentException("operator " + op);
        };
    }
}
