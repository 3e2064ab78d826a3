#!/usr/bin/env python3
"""Rewrites inline fully-qualified type names in Quiver's Java sources into imports and simple names.

    python3 ci/tools/fix_fqn.py [--check] [--verbose] [FILE.java | DIR ...]

With no paths it rewrites every module's src/main/java and src/test/java under the repository root. It finds, in code
(never in comments, Javadoc, string or character literals, nor on package and import lines), names such as
`dev.quiver.placement.CostModel.Estimate` or `java.util.Locale.ROOT`: a package root (the ROOTS below, the same as the
InlineFqn rule of ci/checkstyle.xml), lower-case package segments, then the first upper-case segment, the type. It
imports that type and writes its simple name there (`CostModel.Estimate`, `Locale.ROOT`); for a type of java.lang or
of the file's own package it adds no import.

A name is left qualified, and listed (as `kept`), where the simple name could mean something else in that file:
  - another type of that simple name is imported (single-type or static import), or named qualified in the file;
  - a type of that name is declared in the file (a nested type), or lies in the file's own package;
  - the simple name is a java.lang type (an import would hide java.lang's for the whole file);
  - the simple name already appears unqualified in the file and no import of this very type explains it (it may
    come from a wildcard import, an inherited member type, or be a variable: an import could change its meaning).
Those are for a person: keep them qualified with @SuppressWarnings("checkstyle:inlinefqn") where two types of one
name really meet (names inside such a declaration are counted as kept on purpose, and listed only with --verbose),
or rename. The formatter (`mvn spotless:apply`, run by ci/tools/lint-fix.sh after this) puts the
added imports in order.

Idempotent: a second run changes nothing. Exit status: 0; with --check, 1 if any file would change.
"""

import argparse
import os
import re
import sys
from collections import Counter, defaultdict

# The first segments of qualified names that this script and ci/checkstyle.xml's InlineFqn rule look for.
# `dev` only as `dev.quiver`: Quiver's own packages (a variable `dev` is not a package).
ROOTS = ["java", "javax", "jdk", "sun", "org", "com", "picocli", "scala", r"dev\s*\.\s*quiver"]

# The public top-level types of java.lang (JDK 25): implicitly imported by every file, so an import of another type
# with one of these names would hide them.
JAVA_LANG = set("""
AbstractMethodError Appendable ArithmeticException ArrayIndexOutOfBoundsException ArrayStoreException
AssertionError AutoCloseable Boolean BootstrapMethodError Byte CharSequence Character Class
ClassCastException ClassCircularityError ClassFormatError ClassLoader ClassNotFoundException ClassValue
CloneNotSupportedException Cloneable Comparable Deprecated Double Enum EnumConstantNotPresentException Error
Exception ExceptionInInitializerError Float FunctionalInterface IO IllegalAccessError IllegalAccessException
IllegalArgumentException IllegalCallerException IllegalMonitorStateException IllegalStateException
IllegalThreadStateException IncompatibleClassChangeError IndexOutOfBoundsException InheritableThreadLocal
InstantiationError InstantiationException Integer InternalError InterruptedException Iterable
LayerInstantiationException LinkageError Long MatchException Math Module ModuleLayer
NegativeArraySizeException NoClassDefFoundError NoSuchFieldError NoSuchFieldException NoSuchMethodError
NoSuchMethodException NullPointerException Number NumberFormatException Object OutOfMemoryError Override
Package Process ProcessBuilder ProcessHandle Readable Record ReflectiveOperationException Runnable Runtime
RuntimeException RuntimePermission SafeVarargs ScopedValue SecurityException SecurityManager Short
StableValue StackOverflowError StackTraceElement StackWalker StrictMath String StringBuffer StringBuilder
StringIndexOutOfBoundsException SuppressWarnings System Thread ThreadDeath ThreadGroup ThreadLocal Throwable
TypeNotPresentException UnknownError UnsatisfiedLinkError UnsupportedClassVersionError
UnsupportedOperationException VerifyError VirtualMachineError Void WrongThreadException
""".split())

SOURCE_DIRS = ("src/main/java", "src/test/java")

FQN_RE = re.compile(
    r"(?<![\w$.])(?P<pkg>(?:" + "|".join(ROOTS) + r")(?:\s*\.\s*[a-z_][a-z0-9_]*)*)\s*\.\s*(?P<type>[A-Z][A-Za-z0-9_$]*)(?![\w$])"
)
STATEMENT_RE = re.compile(r"\b(?:package|import)\b[^;]*;")
IMPORT_RE = re.compile(r"\bimport\s+(static\s+)?([\w$.\s]+?)\s*;")
PACKAGE_RE = re.compile(r"\bpackage\s+([\w.\s]+?)\s*;")
DECL_RE = re.compile(r"\b(?:class|interface|enum|record|@\s*interface)\s+([A-Z][\w$]*)")


def mask(src):
    """The source with comments, string, text-block and character literals replaced by spaces (newlines kept), so
    that offsets stay those of the source."""
    out = list(src)
    i, n = 0, len(src)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif c == "/" and src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif src.startswith('"""', i):
            j = i + 3
            while j < n and not src.startswith('"""', j):
                j += 2 if src[j] == "\\" else 1
            j = min(n, j + 3)
            blank(i, j)
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(n, j + 1)
            blank(i, j)
            i = j
        else:
            i += 1
    return "".join(out)


def squash(name):
    return re.sub(r"\s+", "", name)


def repo_root():
    return os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def source_files(paths, root):
    if not paths:
        paths = []
        for mod in sorted(os.listdir(root)):
            for sd in SOURCE_DIRS:
                d = os.path.join(root, mod, sd)
                if os.path.isdir(d):
                    paths.append(d)
    for p in paths:
        if os.path.isdir(p):
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = sorted(d for d in dirnames if d != "target")
                for f in sorted(filenames):
                    if f.endswith(".java"):
                        yield os.path.join(dirpath, f)
        elif p.endswith(".java"):
            yield p


class Index:
    """Which types the project declares, per package (every module's sources, ANTLR's generated parser included)."""

    def __init__(self, root):
        self.types = defaultdict(set)  # package -> top-level type names
        self.members = defaultdict(set)  # qualified top-level type -> names of the types declared in its file
        for mod in sorted(os.listdir(root)):
            mdir = os.path.join(root, mod)
            if not os.path.isdir(os.path.join(mdir, "src")):
                continue
            for dirpath, dirnames, filenames in os.walk(mdir):
                dirnames[:] = [d for d in dirnames if not d.startswith(".")]
                for f in filenames:
                    path = os.path.join(dirpath, f)
                    if f.endswith(".java") and os.sep + "src" + os.sep in path:
                        self._add_java(path)
                    elif f.endswith(".g4") and os.sep + "antlr4" + os.sep in path:
                        self._add_grammar(path)

    def _add_java(self, path):
        try:
            code = mask(open(path, encoding="utf-8").read())
        except (OSError, UnicodeDecodeError):
            return
        m = PACKAGE_RE.search(code)
        pkg = squash(m.group(1)) if m else ""
        top = os.path.basename(path)[:-5]
        self.types[pkg].add(top)
        self.members[pkg + "." + top].update(DECL_RE.findall(code))

    def _add_grammar(self, path):
        rel = path.split(os.sep + "antlr4" + os.sep, 1)[1]
        pkg = ".".join(os.path.dirname(rel).split(os.sep))
        g = os.path.basename(path)[:-3]
        for suffix in ("Parser", "Lexer", "Visitor", "BaseVisitor", "Listener", "BaseListener"):
            self.types[pkg].add(g + suffix)


SUPPRESS_RE = re.compile(r'@\s*SuppressWarnings\s*\(\s*(?:value\s*=\s*)?\{?[^)]*"checkstyle:inlinefqn"', re.I)


def suppressed_ranges(src, code):
    """The spans of the declarations annotated @SuppressWarnings("checkstyle:inlinefqn"): from the annotation to the
    `;` that ends a field, or the `}` that closes the first body."""
    spans = []
    for m in SUPPRESS_RE.finditer(src):
        i, depth = m.end(), 0
        while i < len(code):
            ch = code[i]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == ";" and depth <= 0:
                break
            elif ch == "{" and depth <= 0:
                braces = 0
                while i < len(code):
                    if code[i] == "{":
                        braces += 1
                    elif code[i] == "}":
                        braces -= 1
                        if braces == 0:
                            break
                    i += 1
                break
            i += 1
        spans.append((m.start(), i + 1))
    return spans


def fix_source(src, index, path="<src>"):
    """Returns (new source, [(line, fqn, why) kept qualified], number of names rewritten)."""
    code = mask(src)
    pm = PACKAGE_RE.search(code)
    own_pkg = squash(pm.group(1)) if pm else ""
    statements = [(m.start(), m.end()) for m in STATEMENT_RE.finditer(code)]
    header_end = statements[-1][1] if statements else 0

    singles = {}  # simple name -> qualified name, single-type imports
    static_names = set()  # simple names imported by single static imports
    wildcard_types = set()  # type names brought in by wildcard imports of the project's packages / classes
    for m in IMPORT_RE.finditer(code):
        is_static, name = m.group(1), squash(m.group(2))
        last = name.rsplit(".", 1)[-1]
        if name.endswith(".*"):
            base = name[:-2]
            wildcard_types |= index.types.get(base, set()) | index.members.get(base, set())
        elif is_static:
            static_names.add(last)
        else:
            singles[last] = name

    declared = set(DECL_RE.findall(code))
    top_name = os.path.basename(path)[:-5] if path.endswith(".java") else None
    same_pkg = index.types.get(own_pkg, set())

    def in_statement(pos):
        return any(a <= pos < b for a, b in statements)

    occurrences = []  # (start, end of pkg+type, pkg, type)
    for m in FQN_RE.finditer(code):
        if in_statement(m.start()):
            continue
        occurrences.append((m.start(), m.end(), squash(m.group("pkg")), m.group("type")))
    if not occurrences:
        return src, [], 0

    # Where one simple name is qualified with two packages, the more frequent one is imported.
    by_name = defaultdict(Counter)
    for _, _, pkg, typ in occurrences:
        by_name[typ][pkg] += 1
    chosen = {typ: c.most_common(1)[0][0] for typ, c in by_name.items()}

    fqn_spans = [(s, e) for s, e, _, _ in occurrences]

    def unqualified_uses(typ):
        """Whether `typ` appears as an unqualified identifier in code outside package/import lines."""
        for m in re.finditer(r"(?<![\w$])" + re.escape(typ) + r"(?![\w$])", code):
            if in_statement(m.start()):
                continue
            k = m.start() - 1
            while k >= 0 and code[k].isspace():
                k -= 1
            if k >= 0 and code[k] == ".":
                continue  # a member access or part of a qualified name
            if any(s <= m.start() < e for s, e in fqn_spans):
                continue
            return True
        return False

    decisions = {}  # (pkg, type) -> (import or None, why kept or None)

    def decide(pkg, typ):
        fqn = pkg + "." + typ
        if chosen[typ] != pkg:
            return None, "another type " + chosen[typ] + "." + typ + " of this name is qualified in the file"
        if typ in singles:
            return (None, None) if singles[typ] == fqn else (None, "clashes with import " + singles[typ])
        if typ in static_names:
            return None, "clashes with a static import of " + typ
        nested = declared - ({top_name} if pkg == own_pkg else set())
        if typ in nested:
            return None, "a type " + typ + " is declared in the file"
        if typ in wildcard_types and pkg not in (own_pkg,):
            return None, "a wildcard import brings in another " + typ
        if pkg == own_pkg:
            return None, None
        if pkg == "java.lang":
            if typ in same_pkg:
                return None, "the file's package has a type " + typ
            return None, None
        if typ in JAVA_LANG:
            return None, "java.lang." + typ + " would be hidden by the import"
        if typ in same_pkg:
            return None, "the file's package has a type " + typ
        if unqualified_uses(typ):
            return None, typ + " is already used unqualified in the file"
        return fqn, None

    kept = []
    suppressed = suppressed_ranges(src, code)
    edits = []  # (start, end, replacement)
    imports = set()
    for start, end, pkg, typ in occurrences:
        key = (pkg, typ)
        if key not in decisions:
            decisions[key] = decide(pkg, typ)
        imp, why = decisions[key]
        if why is not None:
            if any(a <= start < b for a, b in suppressed):
                why = "kept on purpose: @SuppressWarnings(\"checkstyle:inlinefqn\"); " + why
            kept.append((src.count("\n", 0, start) + 1, pkg + "." + typ, why))
            continue
        if imp:
            imports.add(imp)
        edits.append((start, end, typ))

    if not edits:
        return src, kept, 0
    out = src
    for start, end, rep in sorted(edits, reverse=True):
        out = out[:start] + rep + out[end:]
    if imports:
        block = "".join("import " + i + ";\n" for i in sorted(imports))
        if header_end:
            nl = out.find("\n", header_end)
            at = len(out) if nl < 0 else nl + 1
            if not statements or not any(code[a:b].lstrip().startswith("import") for a, b in statements):
                block = "\n" + block  # first import after the package line
            out = out[:at] + block + out[at:]
        else:
            out = block + "\n" + out
    return out, kept, len(edits)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="Java files or directories (default: every module's sources)")
    ap.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    ap.add_argument("--verbose", "-v", action="store_true",
                    help="name every file changed, and the names kept qualified on purpose")
    args = ap.parse_args(argv)

    root = repo_root()
    index = Index(root)
    changed = rewritten = 0
    all_kept = []
    for path in source_files(args.paths, root):
        with open(path, encoding="utf-8") as f:
            src = f.read()
        new, kept, n = fix_source(src, index, path)
        rel = os.path.relpath(path, root)
        all_kept.extend((rel, line, fqn, why) for line, fqn, why in kept)
        if new != src:
            changed += 1
            rewritten += n
            if args.verbose or args.check:
                print(("would change " if args.check else "changed ") + rel + " (" + str(n) + " names)")
            if not args.check:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(new)
    on_purpose = [k for k in all_kept if k[3].startswith("kept on purpose")]
    for rel, line, fqn, why in all_kept:
        if args.verbose or not why.startswith("kept on purpose"):
            print("kept %s:%d: %s (%s)" % (rel, line, fqn, why))
    print(
        "fix_fqn: %d names rewritten in %d files, %d left qualified for a person, %d kept on purpose%s"
        % (rewritten, changed, len(all_kept) - len(on_purpose), len(on_purpose), " (check only)" if args.check else ""),
        file=sys.stderr,
    )
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
