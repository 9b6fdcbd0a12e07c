#!/usr/bin/env bash
# Checks that a release build is reproducible: builds the published modules twice, each in its own
# copy of this tree, with the release profile (jars, sources and javadoc jars; tests neither
# compiled nor run), and compares the sha256 of every jar the two builds made. The jars carry no
# build time and no machine: project.build.outputTimestamp in the parent pom fixes every entry's
# time.
#   usage: .ci/reproducible.sh [extra mvn arguments, e.g. -o]
set -euo pipefail
cd "$(dirname "$0")/.."

# The published modules, as the comment above the parent pom's modules decides them.
published=echomq-bom,echomq-core,echomq-cron,echomq-jdbc,echomq-shedlock,echomq-spring-integration
published=$published,echomq-spring-boot-starter,echomq-micrometer,echomq-opentelemetry,echomq-dashboard
published=$published,echomq-cli,echomq-server,echomq-testkit,echomq-test

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Both copies first, so that an edit made while the first one builds cannot reach only the second.
for build in a b; do
  mkdir "$work/$build"
  # the working tree as it is, without what a build or a peer install left in it
  tar -cf - --exclude=./.git --exclude='*/target' --exclude='node_modules' . | tar -xf - -C "$work/$build"
done
for build in a b; do
  ( cd "$work/$build" && mvn -B -q "$@" -P release -Dmaven.test.skip=true package -pl "$published" -am ) \
    > "$work/$build.log" 2>&1 || { cat "$work/$build.log" >&2; echo "reproducible: build $build failed" >&2; exit 1; }
  ( cd "$work/$build" && find . -path '*/target/*.jar' -type f | sort | xargs sha256sum ) > "$work/$build.sha256"
done

jars=$(wc -l < "$work/a.sha256")
[ "$jars" -gt 0 ] || { echo "reproducible: the builds made no jar" >&2; exit 1; }
if ! diff "$work/a.sha256" "$work/b.sha256" > "$work/diff"; then
  echo "reproducible: two builds of this tree gave different bytes:" >&2
  cat "$work/diff" >&2
  exit 1
fi
echo "reproducible: $jars jars, the same sha256 in both builds"
