package dev.pulse.rules;

/** Prometheus' alert states; the wire names are {@code inactive}, {@code pending}, {@code firing}. */
public enum AlertState {
    INACTIVE, PENDING, FIRING;

    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
