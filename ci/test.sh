#!/usr/bin/env bash
# Quiver's test command (named in the README; CI runs it through .ci/run):
#   ci/test.sh [extra Maven arguments]      e.g.  ci/test.sh -pl host -am
# Finds a JDK 25 (ci/java.sh), installs OpenCL/PoCL if possible (ci/setup.sh), then runs
# `mvn -B -ntp verify` from the repository root, which runs the tests and then the lint checks (docs/lint.md).
# The exit code is Maven's.
# Behaves the same on CI and on a workstation: it reads no CI-specific variables, and leaves
# CI unset if it is unset.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# shellcheck source=ci/java.sh
source ci/java.sh
bash ci/setup.sh

echo "Using JAVA_HOME=$JAVA_HOME ($("$JAVA_HOME/bin/java" -version 2>&1 | head -n 1))"
# The machine the suite ran on: results and failures can depend on the CPU and the OpenCL devices.
echo "CPU: $(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/^[^:]*: *//') ($(nproc) cores;$(grep -m1 -o -w 'avx512f' /proc/cpuinfo >/dev/null 2>&1 && echo ' AVX-512' || echo ' no AVX-512'))"
if command -v clinfo >/dev/null 2>&1; then
  echo "OpenCL devices:"
  clinfo -l 2>&1 | sed 's/^/  /'
else
  echo "OpenCL devices: clinfo not installed"
fi
rc=0
mvn -B -ntp verify "$@" || rc=$?
exit "$rc"
