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
package dev.pulse.local.template;

import java.time.Duration;

/**
 * One event source mapping of template.yaml (a function's {@code Kinesis} event), with every setting resolved and
 * Lambda's defaults filled in where the template leaves a setting out.
 *
 * @param functionId        logical id of the function it invokes
 * @param eventId           logical id of the event inside the function ({@code Stream})
 * @param sourceArn         the stream's ARN, resolved against the local stack
 * @param startingPosition  {@code LATEST} or {@code TRIM_HORIZON}
 * @param batchSize         records per invocation (Lambda's default: 100)
 * @param maxBatchingWindow how long to gather records before invoking (default 0)
 * @param parallelizationFactor concurrent batches per shard (default 1)
 * @param bisectOnError     split a batch in two when the function returns an error (default false)
 * @param maxRetryAttempts  retries of a failing batch; -1 for infinite (Lambda's default)
 * @param maxRecordAge      records older than this are not processed; {@code null} for infinite (default)
 * @param reportBatchItemFailures whether {@code FunctionResponseTypes} has {@code ReportBatchItemFailures}
 * @param onFailureArn      the on-failure destination ({@code DestinationConfig.OnFailure.Destination}), or null
 */
public record MappingSpec(
        String functionId,
        String eventId,
        String sourceArn,
        String startingPosition,
        int batchSize,
        Duration maxBatchingWindow,
        int parallelizationFactor,
        boolean bisectOnError,
        int maxRetryAttempts,
        Duration maxRecordAge,
        boolean reportBatchItemFailures,
        String onFailureArn) {}
