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

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

/** The directory holding template.yaml, for the template tests. */
final class ProjectRoot {

    private ProjectRoot() {}

    /** Maven runs the tests in local/; walks up so an IDE running them elsewhere finds the template too. */
    static Path find() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isRegularFile(dir.resolve("template.yaml"))) {
            dir = dir.getParent();
            assertThat(dir).as("template.yaml above the working directory").isNotNull();
        }
        return dir;
    }
}
