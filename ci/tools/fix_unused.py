#!/usr/bin/env python3
"""Renames the unused pattern and loop variables that Checkstyle's UnusedLocalVariable reports to `_`.

    python3 ci/tools/fix_unused.py [--check] [checkstyle-result.xml ...]

Reads Checkstyle's XML reports (default: every module's target/checkstyle-result.xml under the repository root, as
`mvn checkstyle:check@checkstyle-check -Dquiver.lint.skip=false -Dcheckstyle.failOnViolation=false` leaves them;
ci/tools/lint-fix.sh runs that) and, for each unused local variable reported at a place where Java allows the
unnamed variable, writes `_` for its name:
  - a type pattern in a `case` label or a record pattern: `case ArrowType.List l ->` becomes `case ArrowType.List _ ->`;
  - a type pattern right after `instanceof`: `v instanceof Float f` becomes `v instanceof Float` (no binding);
  - the variable of an enhanced `for`: `for (Run r : runs)` becomes `for (Run _ : runs)`.
Any other unused local (an assignment whose value nobody reads) is listed for a person: removing it may remove a
computation with effects.

Exit status: 0; with --check, 1 if a file would change.
"""

import argparse
import glob
import os
import re
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict

MESSAGE_RE = re.compile(r"Unused named local variable '([\w$]+)'")
# What may stand before the name on its line, for each kind of place.
INSTANCEOF_RE = re.compile(r"\binstanceof\s+(?:final\s+)?[\w$.]+(?:<[^()]*>)?\s+$")
CASE_RE = re.compile(r"(?:\bcase\b.*|[(,]\s*(?:final\s+)?|^\s*(?:final\s+)?)[\w$.]+(?:<[^()]*>)?(?:\[\])*\s+$")
FOR_RE = re.compile(r"\bfor\s*\(\s*(?:final\s+)?[\w$.]+(?:<[^()]*>)?(?:\[\])*\s+$")


def repo_root():
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def findings(reports):
    """{file: [(line, column, name)]} for the UnusedLocalVariable findings of the reports."""
    out = defaultdict(list)
    for report in reports:
        try:
            tree = ET.parse(report)
        except (OSError, ET.ParseError) as e:
            print("fix_unused: cannot read %s: %s" % (report, e), file=sys.stderr)
            continue
        for f in tree.getroot().iter("file"):
            for err in f.iter("error"):
                if not err.get("source", "").endswith("UnusedLocalVariableCheck"):
                    continue
                m = MESSAGE_RE.search(err.get("message", ""))
                if m:
                    out[f.get("name")].append((int(err.get("line")), int(err.get("column")), m.group(1)))
    return out


def fix_line(line, col, name):
    """The line with the variable named `name`, declared from 1-based column `col` on (Checkstyle reports a pattern
    variable at its name, a loop variable at its type), renamed or dropped; None where that is not safe."""
    for m in re.finditer(r"(?<![\w$])" + re.escape(name) + r"(?![\w$])", line):
        if m.start() < col - 1:
            continue
        before, after = line[: m.start()], line[m.end() :]
        if INSTANCEOF_RE.search(before):
            return before.rstrip() + after
        if FOR_RE.search(before) and re.match(r"\s*:", after):
            return before + "_" + after
        if CASE_RE.search(before) and re.match(r"\s*(->|:|,|\)|when\b)", after):
            return before + "_" + after
        return None
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="*", help="Checkstyle XML reports (default: */target/checkstyle-result.xml)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    args = ap.parse_args(argv)
    root = repo_root()
    reports = args.reports or sorted(glob.glob(os.path.join(root, "*", "target", "checkstyle-result.xml")))
    fixed = 0
    left = []
    would_change = False
    for path, found in sorted(findings(reports).items()):
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        # Right to left on a line, so that earlier columns stay valid.
        for line_no, col, name in sorted(found, key=lambda t: (t[0], -t[1])):
            new = fix_line(lines[line_no - 1], col, name)
            if new is None:
                left.append((os.path.relpath(path, root), line_no, name))
            else:
                lines[line_no - 1] = new
                fixed += 1
        text = "\n".join(lines)
        with open(path, encoding="utf-8") as f:
            changed = f.read() != text
        if changed:
            would_change = True
            if not args.check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
    for rel, line_no, name in left:
        print("left %s:%d: unused local '%s' (remove it by hand if computing it has no effect)" % (rel, line_no, name))
    print("fix_unused: %d variables renamed to _ or dropped, %d left%s"
          % (fixed, len(left), " (check only)" if args.check else ""), file=sys.stderr)
    return 1 if args.check and would_change else 0


if __name__ == "__main__":
    sys.exit(main())
