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

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code AWS::Serverless::Function} of template.yaml with {@code Globals.Function} merged in and every value
 * resolved.
 *
 * @param logicalId    the function's logical id
 * @param functionName resolved {@code FunctionName}, or {@code <stackName>-<logicalId>-LOCAL} when the template
 *                     leaves it to CloudFormation
 * @param codeUri      absolute {@code CodeUri}, resolved against the template's directory; null when the function
 *                     has none (inline code, images)
 * @param handler      {@code Handler}
 * @param runtime      {@code Runtime}
 * @param memoryMb     {@code MemorySize} (Lambda's default: 128)
 * @param timeoutSeconds {@code Timeout} (Lambda's default: 3)
 * @param environment  {@code Environment.Variables} in template order, Globals first; numbers without {@code .0}
 * @param layerIds     logical ids of the template's layers in {@code Layers}, Globals first (layers given by ARN
 *                     are not part of the template and are left out)
 * @param buildMethod  {@code Metadata.BuildMethod}, or null
 * @param architecture the single entry of {@code Architectures} (Lambda's default: x86_64)
 * @param snapStart    true when its callers run a SnapStart snapshot: {@code SnapStart.ApplyOn: PublishedVersions}
 *                     with an {@code AutoPublishAlias} (SAM points the function's events at the alias, so they invoke
 *                     the published version; without the alias only {@code $LATEST} runs, which has no snapshot)
 */
public record FunctionSpec(
        String logicalId,
        String functionName,
        Path codeUri,
        String handler,
        String runtime,
        int memoryMb,
        int timeoutSeconds,
        Map<String, String> environment,
        List<String> layerIds,
        String buildMethod,
        String architecture,
        boolean snapStart) {

    public FunctionSpec {
        environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        layerIds = List.copyOf(layerIds);
    }
}
