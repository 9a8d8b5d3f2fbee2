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
public record WriteStats(long itemsWritten, long retries, long throttles, long unprocessedItems, long requests) {}
