#!/usr/bin/env bash
# Quiver's JMH benchmarks (physical tree against a per-row interpreter; the haversine RowFn against
# a hand-written Vector API loop and a boxed per-row UDF; the string kernels LIKE '%abc%',
# contains(s, 'abc') and upper(s) against per-row java.lang.String loops, StringBenchmark):
#
#   bash bench/run.sh [JMH options] [benchmark regexp]      e.g.  bash bench/run.sh -f 1 -wi 3 -w 1s -i 5 -r 1s
#
# Builds the whole reactor (mvn package -DskipTests; bench/target/classpath.txt and jvm.options
# come out of it), then runs dev.quiver.bench.BenchReport: JMH with these arguments (-h lists
# them), followed by the speedups, GB/s, the dispatch share, the haversine ratios and the string
# ratios (targets: LIKE and contains >= 5x per-row String.contains, upper >= 3x per-row
# toUpperCase) and the dictionary ratios (DictionaryBenchmark: a dictionary-encoded column mapped,
# decoded, as plain Utf8 and per row) computed from that run's medians, and a table of the targets.
#   bash bench/run.sh -f 1 -wi 3 -w 1s -i 5 -r 1s StringBenchmark     the string benchmarks only
# JMH's forks inherit the JVM options (the parent pom's quiver.jvm.options) and add their -Xmx.
# Environment:
#   QUIVER_MVN_ARGS    extra Maven arguments, e.g. "-o" to build offline
#   BENCH_SKIP_BUILD=1 run what was built last
#   JAVA_HOME          a JDK 25+ (else one is looked for in /usr/lib/jvm, see ci/java.sh)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
# shellcheck source=ci/java.sh
source "$root/ci/java.sh" || exit 1

if [[ "${BENCH_SKIP_BUILD:-0}" != 1 ]]; then
  echo "bench/run.sh: building (mvn package -DskipTests)..." >&2
  read -r -a mvn_args <<<"${QUIVER_MVN_ARGS:-}"
  build_log=$(mktemp "${TMPDIR:-/tmp}/quiver-bench-build.XXXXXX")
  if ! (cd "$root" && mvn -q -B -ntp "${mvn_args[@]}" package -DskipTests) >"$build_log" 2>&1; then
    cat "$build_log" >&2
    rm -f "$build_log"
    echo "bench/run.sh: build failed (mvn -q -B -ntp ${QUIVER_MVN_ARGS:-} package -DskipTests in $root)" >&2
    exit 1
  fi
  rm -f "$build_log"
fi

target="$root/bench/target"
for f in "$target/classes" "$target/classpath.txt" "$target/jvm.options"; do
  if [[ ! -e "$f" ]]; then
    echo "bench/run.sh: $f is missing; build first (run without BENCH_SKIP_BUILD=1)" >&2
    exit 1
  fi
done
read -r -a jvm_opts <"$target/jvm.options"
# HotSpot's signal chaining: PoCL builds kernels with LLVM in-process, and LLVM installs SIGSEGV
# handlers of its own; the JVM takes SIGSEGV for safepoints and null checks, so without chaining
# one landing while LLVM's handler is installed kills the process (README: "OpenCL and the JVM's signals").
if [[ -f "$JAVA_HOME/lib/libjsig.so" && "${LD_PRELOAD:-}" != *libjsig* ]]; then
  export LD_PRELOAD="$JAVA_HOME/lib/libjsig.so${LD_PRELOAD:+:$LD_PRELOAD}"
fi

exec "$JAVA_HOME/bin/java" "${jvm_opts[@]}" -cp "$target/classes:$(cat "$target/classpath.txt")" \
  dev.quiver.bench.BenchReport "$@"
