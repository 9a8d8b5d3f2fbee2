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
 */
public record FunctionSpec(String logicalId, String functionName, Path codeUri, String handler, String runtime,
        int memoryMb, int timeoutSeconds, Map<String, String> environment, List<String> layerIds, String buildMethod,
        String architecture) {

    public FunctionSpec {
        environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        layerIds = List.copyOf(layerIds);
    }
}
