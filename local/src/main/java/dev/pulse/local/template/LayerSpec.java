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

/**
 * One {@code AWS::Serverless::LayerVersion} of template.yaml.
 *
 * @param logicalId   the layer's logical id
 * @param contentUri  absolute {@code ContentUri}, resolved against the template's directory
 * @param buildMethod {@code Metadata.BuildMethod}, or null
 */
public record LayerSpec(String logicalId, Path contentUri, String buildMethod) {}
