//! The build-tool plugins: `jtrace-maven-plugin`, built offline with Debian's Maven and plugin tools, and the Gradle plugin `io.jtrace`, compiled against Debian's Gradle; each carries the agent jar and the `jtrace` command (java-api/plugins/).

use super::jars::{make_jar, EXTRACT};
use crate::java::Jdk;
use crate::util;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Maven group of everything jtrace publishes.
pub const GROUP: &str = "io.jtrace";

/// What a Maven project needs from Debian to build the Maven plugin offline.
pub const MAVEN_PACKAGES: [&str; 3] = [
    "maven",
    "libmaven-plugin-tools-java",
    "libmaven-jar-plugin-java",
];

/// Where Debian's Gradle keeps the jars the Gradle plugin is compiled against.
const GRADLE_LIB: &str = "/usr/share/gradle/lib";

/// What Gradle's API refers to beyond its own jars (`Project` and `DefaultTask` name Groovy's
/// `Closure` and SLF4J's `Logger`), from Debian's groovy and libslf4j-java, which gradle needs.
const GRADLE_API_DEPS: [&str; 2] = [
    "/usr/share/java/groovy.jar",
    "/usr/share/java/slf4j-api.jar",
];

/// The files the plugins carry (`jtrace/carried/` in their jars): the agent jar, the
/// command for this platform, and their SHA-256 (`SHA256SUMS`, read by `Carried.java`).
fn stage_carried(resources: &Path, agent_jar: &Path, command: &Path) -> Result<(), String> {
    let carried = resources.join("jtrace/carried");
    std::fs::create_dir_all(carried.join("linux-x86_64")).map_err(|e| e.to_string())?;
    std::fs::copy(agent_jar, carried.join("jtrace-agent.jar")).map_err(|e| e.to_string())?;
    std::fs::copy(command, carried.join("linux-x86_64/jtrace")).map_err(|e| e.to_string())?;
    let mut sums = String::new();
    for name in ["jtrace-agent.jar", "linux-x86_64/jtrace"] {
        sums.push_str(&format!("{}  {name}\n", util::sha256(&carried.join(name))?));
    }
    std::fs::write(carried.join("SHA256SUMS"), sums).map_err(|e| e.to_string())
}

/// The Java sources under `dir`, in name order.
fn java_files(dir: &Path) -> Vec<PathBuf> {
    util::files_under(dir)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "java"))
        .collect()
}

/// Copies the files under `from` into `to`, keeping their paths.
fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    for f in util::files_under(from) {
        let rel = f.strip_prefix(from).map_err(|e| e.to_string())?;
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
        }
        std::fs::copy(&f, &dest).map_err(|e| format!("{}: {e}", f.display()))?;
    }
    Ok(())
}

/// A plugin built: its jar and the pom it is installed with.
pub struct Built {
    pub jar: PathBuf,
    pub pom: PathBuf,
}

/// `jtrace-maven-plugin-VERSION.jar` and its pom: java-api/plugins/maven/pom.xml with the
/// version and the build date filled in, built by `mvn -o package` against Debian's
/// repository (maven-plugin-plugin writes the descriptor from the mojos' annotations).
pub fn maven(jdk: &Jdk, version: &str, agent_jar: &Path, command: &Path) -> Result<Built, String> {
    let root = util::root();
    let src = root.join("java-api/plugins");
    let stage = root.join("target/xtask/maven-plugin");
    let _ = std::fs::remove_dir_all(&stage);
    let java = stage.join("src/main/java");
    copy_tree(&src.join("common"), &java)?;
    copy_tree(&src.join("maven/src/main/java"), &java)?;
    let extract = java.join("jtrace/agent/Extract.java");
    std::fs::create_dir_all(extract.parent().unwrap_or(&java)).map_err(|e| e.to_string())?;
    std::fs::copy(root.join(EXTRACT), &extract).map_err(|e| e.to_string())?;
    stage_carried(&stage.join("src/main/resources"), agent_jar, command)?;
    let pom = std::fs::read_to_string(src.join("maven/pom.xml")).map_err(|e| e.to_string())?;
    let pom = pom
        .replace("@VERSION@", version)
        .replace("@TIMESTAMP@", &util::source_date().1);
    std::fs::write(stage.join("pom.xml"), &pom).map_err(|e| e.to_string())?;
    std::fs::write(
        stage.join("settings.xml"),
        "<settings>\n  <localRepository>/usr/share/maven-repo</localRepository>\n  \
         <offline>true</offline>\n</settings>\n",
    )
    .map_err(|e| e.to_string())?;
    util::run_tool(
        Command::new("mvn")
            .args(["-o", "-q", "-B", "-s", "settings.xml", "package"])
            .current_dir(&stage)
            .env("JAVA_HOME", &jdk.home),
        &format!(
            "mvn package of the Maven plugin (needs Debian's {})",
            MAVEN_PACKAGES.join(", ")
        ),
    )?;
    let jar = stage.join(format!("target/jtrace-maven-plugin-{version}.jar"));
    if !jar.is_file() {
        return Err(format!("mvn package made no {}", jar.display()));
    }
    Ok(Built {
        jar,
        pom: stage.join("pom.xml"),
    })
}

/// `jtrace-gradle-plugin-VERSION.jar` (the plugin `io.jtrace`) and its pom, with no
/// dependencies: Gradle supplies its own API.
pub fn gradle(jdk: &Jdk, version: &str, agent_jar: &Path, command: &Path) -> Result<Built, String> {
    let root = util::root();
    let src = root.join("java-api/plugins");
    let stage = root.join("target/xtask/gradle-plugin");
    let _ = std::fs::remove_dir_all(&stage);
    let tree = stage.join("jar");
    let mut api: Vec<PathBuf> = util::files_under(Path::new(GRADLE_LIB))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jar"))
        .collect();
    api.sort();
    if api.is_empty() {
        return Err(format!(
            "{GRADLE_LIB} has no jars: the Gradle plugin is compiled against Debian's Gradle \
             (apt-get install gradle)"
        ));
    }
    api.extend(GRADLE_API_DEPS.iter().map(PathBuf::from));
    let cp = std::env::join_paths(&api).map_err(|e| e.to_string())?;
    let mut sources = java_files(&src.join("common"));
    sources.push(root.join(EXTRACT));
    sources.extend(java_files(&src.join("gradle")));
    crate::java::javac(
        jdk,
        &tree,
        &["--release", "11", "-cp", &cp.to_string_lossy()],
        &sources,
    )?;
    copy_tree(&src.join("gradle/META-INF"), &tree.join("META-INF"))?;
    stage_carried(&tree, agent_jar, command)?;
    let jar = stage.join(format!("jtrace-gradle-plugin-{version}.jar"));
    make_jar(jdk, &jar, None, &tree)?;
    let pom = stage.join(format!("jtrace-gradle-plugin-{version}.pom"));
    std::fs::write(&pom, pom_text("jtrace-gradle-plugin", version, None))
        .map_err(|e| e.to_string())?;
    Ok(Built { jar, pom })
}

/// The pom of the plugin marker `io.jtrace:io.jtrace.gradle.plugin`, which Gradle's
/// `plugins { id 'io.jtrace' version 'V' }` looks up, pointing at the plugin's jar.
pub fn gradle_marker(version: &str) -> String {
    pom_text(
        "io.jtrace.gradle.plugin",
        version,
        Some(("jtrace-gradle-plugin", version)),
    )
}

fn pom_text(artifact: &str, version: &str, depends: Option<(&str, &str)>) -> String {
    // A marker is a pom alone (Gradle looks for a jar otherwise).
    let deps = depends.map_or(String::new(), |(a, v)| {
        format!(
            "  <packaging>pom</packaging>\n  <dependencies>\n    <dependency>\n      <groupId>{GROUP}</groupId>\n      \
             <artifactId>{a}</artifactId>\n      <version>{v}</version>\n    </dependency>\n  \
             </dependencies>\n"
        )
    });
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  \
         <modelVersion>4.0.0</modelVersion>\n  <groupId>{GROUP}</groupId>\n  \
         <artifactId>{artifact}</artifactId>\n  <version>{version}</version>\n{deps}</project>\n"
    )
}
