#!/usr/bin/env bash
# Fixes what the lint checks of `mvn verify` (docs/lint.md) can fix mechanically, in every module:
#   ci/tools/lint-fix.sh [extra Maven arguments]        e.g.  ci/tools/lint-fix.sh -o
#   1. ci/tools/fix_fqn.py: inline fully-qualified type names become imports and simple names;
#   2. mvn spotless:apply: palantir-java-format, imports sorted, unused imports removed;
#   3. Checkstyle (ci/checkstyle.xml) reports, then ci/tools/fix_unused.py: unused pattern and loop variables
#      become `_`;
#   4. mvn spotless:apply again (the renames may change line breaks), then Checkstyle once more, whose findings
#      are what is left for a person (the names fix_fqn.py left qualified are listed by step 1 too).
# Re-runnable: on clean sources it changes nothing. Exit status 0 when nothing is left, 1 when Checkstyle still finds
# something, else that of the step that failed. Changes only src/main/java and src/test/java of each module.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# shellcheck source=ci/java.sh
source ci/java.sh

# Maven, quiet (Maven 3.8's -q still prints colour resets: dropped).
mvnq() {
  mvn -B -q -Dstyle.color=never "$@" 2>&1 | sed 's/\x1b\[[0-9;]*m//g'
}

checkstyle() {
  # The execution bound in verify, run alone, reporting instead of failing: */target/checkstyle-result.xml.
  mvnq "$@" checkstyle:check@checkstyle-check -Dquiver.lint.skip=false -Dcheckstyle.failOnViolation=false \
    -Dcheckstyle.console=false
}

echo "== 1. fully-qualified names (ci/tools/fix_fqn.py)"
python3 ci/tools/fix_fqn.py
echo "== 2. format (mvn spotless:apply)"
mvnq "$@" spotless:apply
echo "== 3. unused pattern and loop variables (Checkstyle, then ci/tools/fix_unused.py)"
checkstyle "$@"
python3 ci/tools/fix_unused.py
echo "== 4. format again, and what is left (Checkstyle)"
mvnq "$@" spotless:apply
checkstyle "$@"
left=$(python3 - <<'PY'
import glob, xml.etree.ElementTree as ET
n = 0
for report in sorted(glob.glob("*/target/checkstyle-result.xml")):
    for f in ET.parse(report).getroot().iter("file"):
        for e in f.iter("error"):
            n += 1
            name = f.get("name")
            print("%s:%s:%s: %s [%s]" % (name, e.get("line"), e.get("column"), e.get("message"),
                                         e.get("source").rsplit(".", 1)[-1].replace("Check", "")))
print(n)
PY
)
count=$(printf '%s\n' "$left" | tail -n 1)
if [[ "$count" != 0 ]]; then
  printf '%s\n' "$left" | sed '$d' | sed "s#^$PWD/##"
  echo "lint-fix: $count Checkstyle findings left for a person (docs/lint.md says how to fix or keep each kind)"
  exit 1
fi
echo "lint-fix: nothing left; \`mvn verify\` will pass its lint checks"
