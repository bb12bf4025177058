#!/bin/sh
# Installs jtrace's Maven plugin (io.jtrace:jtrace-maven-plugin:@VERSION@) and Gradle plugin
# (io.jtrace:jtrace-gradle-plugin:@VERSION@, with the marker `plugins { id 'io.jtrace' }` looks
# up) from this archive's repo/ into a local Maven repository: LOCAL_REPOSITORY, default
# ~/.m2/repository (Gradle reads it as mavenLocal()). It copies files into the repository's
# layout and writes its metadata: nothing but a shell is needed, no network, no plugin of
# Maven's. Usage: install-maven-plugin.sh [LOCAL_REPOSITORY]
set -eu
case "${1:-}" in
    -h|--help) sed -n '2,7s/^# \{0,1\}//p' "$0"; exit 0 ;;
esac
if [ $# -gt 1 ]; then
    echo "install-maven-plugin.sh: one argument at most, the local repository (default ~/.m2/repository)" >&2
    exit 2
fi
here=$(CDPATH= cd -- "$(dirname -- "$0")" && pwd -P)
repo=${1:-${HOME:?HOME is not set; give the local repository}/.m2/repository}
version=@VERSION@
if [ ! -d "$here/repo/io/jtrace" ]; then
    printf 'install-maven-plugin.sh: %s/repo/io/jtrace is missing; run me from the unpacked archive\n' "$here" >&2
    exit 2
fi
mkdir -p "$repo/io/jtrace" || { printf 'install-maven-plugin.sh: cannot create %s/io/jtrace\n' "$repo" >&2; exit 2; }
cp -R "$here/repo/io/jtrace/." "$repo/io/jtrace/"
now=$(date -u +%Y%m%d%H%M%S)
# Each artifact's versions, so that a build may leave the version out (this version is
# named the latest; versions installed before are not listed).
for artifact in jtrace-maven-plugin jtrace-gradle-plugin io.jtrace.gradle.plugin; do
    cat > "$repo/io/jtrace/$artifact/maven-metadata-local.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>io.jtrace</groupId>
  <artifactId>$artifact</artifactId>
  <versioning>
    <latest>$version</latest>
    <release>$version</release>
    <versions>
      <version>$version</version>
    </versions>
    <lastUpdated>$now</lastUpdated>
  </versioning>
</metadata>
XML
done
# The `jtrace:` goal prefix (mvn jtrace:report, with io.jtrace among the plugin groups).
cat > "$repo/io/jtrace/maven-metadata-local.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <plugins>
    <plugin>
      <name>jtrace Maven plugin</name>
      <prefix>jtrace</prefix>
      <artifactId>jtrace-maven-plugin</artifactId>
    </plugin>
  </plugins>
</metadata>
XML
printf 'installed io.jtrace:jtrace-maven-plugin:%s and io.jtrace:jtrace-gradle-plugin:%s into %s\n' "$version" "$version" "$repo"
