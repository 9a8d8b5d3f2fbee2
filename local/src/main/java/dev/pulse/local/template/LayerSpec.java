package dev.pulse.local.template;

import java.nio.file.Path;

/**
 * One {@code AWS::Serverless::LayerVersion} of template.yaml.
 *
 * @param logicalId   the layer's logical id
 * @param contentUri  absolute {@code ContentUri}, resolved against the template's directory
 * @param buildMethod {@code Metadata.BuildMethod}, or null
 */
public record LayerSpec(String logicalId, Path contentUri, String buildMethod) {
}
