package dev.pulse.codec;

import dev.pulse.model.Datapoint;
import java.util.List;

/**
 * What one record decoded to.
 *
 * @param datapoints    valid datapoints, in record order
 * @param skippedEvents log events that were neither EMF nor REPORT lines, or control messages
 */
public record Decoded(List<Datapoint> datapoints, int skippedEvents) {
}
