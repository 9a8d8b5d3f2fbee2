package dev.pulse.store.write;

/**
 * What one {@link DynamoDbStore#writeAll} call did.
 *
 * @param itemsWritten     items DynamoDB accepted
 * @param retries          BatchWriteItem calls repeated after an error, throttle or unprocessed items
 * @param throttles        throttling errors (ProvisionedThroughputExceeded, RequestLimitExceeded, Throttling)
 * @param unprocessedItems items DynamoDB handed back as UnprocessedItems, summed over attempts
 * @param requests         BatchWriteItem calls made
 */
public record WriteStats(long itemsWritten, long retries, long throttles, long unprocessedItems, long requests) {
}
