package dev.pulse.local.template;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;

/** The directory holding template.yaml, for the template tests. */
final class ProjectRoot {

    private ProjectRoot() {
    }

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
