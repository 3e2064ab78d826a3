# shellcheck shell=bash
# Finds a JDK 25 (or newer) for Quiver and exports JAVA_HOME, PATH and MAVEN_OPTS.
#
# Meant to be sourced:   source ci/java.sh
# Looks at, in order:
#   1. $JAVA_HOME, if its bin/java reports version 25 or newer and it has bin/javac;
#   2. the first /usr/lib/jvm/*25* directory with bin/javac (e.g. temurin-25-jdk-amd64);
#   3. any other /usr/lib/jvm/* JDK whose bin/java reports 25 or newer.
# Returns (or exits, when run rather than sourced) non-zero with instructions if none is found.
# Does not change the caller's shell options.

# Prints the feature version (25 for "25.0.3", "25", "25-ea"; 8 for "1.8.0_412") of the
# java at $1, or nothing if it does not run.
_quiver_java_major() {
  local out ver
  [[ -x "$1" ]] || return 1
  out=$("$1" -version 2>&1) || return 1
  ver=$(printf '%s\n' "$out" | sed -n 's/^[^"]* version "\([^"]*\)".*/\1/p' | head -n 1)
  [[ -n "$ver" ]] || return 1
  if [[ "$ver" == 1.* ]]; then
    ver=${ver#1.}
  fi
  ver=${ver%%[!0-9]*}
  [[ -n "$ver" ]] || return 1
  printf '%s\n' "$ver"
}

# True if $1 is a JDK (bin/java + bin/javac) of version 25 or newer.
_quiver_is_jdk25() {
  local major
  [[ -n "$1" && -x "$1/bin/java" && -x "$1/bin/javac" ]] || return 1
  major=$(_quiver_java_major "$1/bin/java") || return 1
  (( major >= 25 ))
}

_quiver_find_jdk() {
  local d
  if [[ -n "${JAVA_HOME:-}" ]]; then
    if _quiver_is_jdk25 "$JAVA_HOME"; then
      printf '%s\n' "$JAVA_HOME"
      return 0
    fi
    echo "ci/java.sh: note: JAVA_HOME=$JAVA_HOME is not a JDK 25 or newer; looking in /usr/lib/jvm" >&2
  fi
  for d in /usr/lib/jvm/*25*; do
    if [[ -d "$d" && -x "$d/bin/javac" ]] && _quiver_is_jdk25 "$d"; then
      printf '%s\n' "$d"
      return 0
    fi
  done
  for d in /usr/lib/jvm/*; do
    if [[ -d "$d" && ! -L "$d" ]] && _quiver_is_jdk25 "$d"; then
      printf '%s\n' "$d"
      return 0
    fi
  done
  return 1
}

_quiver_setup_java() {
  local jdk
  if ! jdk=$(_quiver_find_jdk); then
    cat >&2 <<EOF
ERROR: Quiver needs a JDK 25 or newer, and none was found.
  Looked at:  JAVA_HOME (${JAVA_HOME:-unset}), /usr/lib/jvm/*25*, and other JDKs in /usr/lib/jvm
              (a JDK here means a directory with bin/java reporting version 25+ and bin/javac).
  Install one, e.g. Eclipse Temurin 25 (https://adoptium.net/installation/linux/):
    Debian/Ubuntu:  apt-get install -y wget gpg apt-transport-https
                    wget -qO - https://packages.adoptium.net/artifactory/api/gpg/key/public \\
                      | gpg --dearmor > /etc/apt/trusted.gpg.d/adoptium.gpg
                    echo "deb https://packages.adoptium.net/artifactory/deb \$(. /etc/os-release; echo \$VERSION_CODENAME) main" \\
                      > /etc/apt/sources.list.d/adoptium.list
                    apt-get update && apt-get install -y temurin-25-jdk
    or unpack a tarball from https://adoptium.net/temurin/releases/?version=25
  Then, if it is not under /usr/lib/jvm, point JAVA_HOME at it:
    export JAVA_HOME=/path/to/jdk-25
EOF
    return 1
  fi
  export JAVA_HOME="$jdk"
  case ":$PATH:" in
    ":$JAVA_HOME/bin:"*) ;;                       # already first
    *) export PATH="$JAVA_HOME/bin:$PATH" ;;
  esac
  # Maven 3.8/3.9 itself (jansi, guava) triggers native-access and sun.misc.Unsafe warnings on JDK 25.
  local opt
  for opt in --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow; do
    case " ${MAVEN_OPTS:-} " in
      *" ${opt%%=*}="*) ;;                        # already set (to whatever value)
      *) MAVEN_OPTS="${MAVEN_OPTS:+$MAVEN_OPTS }$opt" ;;
    esac
  done
  export MAVEN_OPTS
  return 0
}

if _quiver_setup_java; then
  _quiver_java_rc=0
else
  _quiver_java_rc=1
fi
unset -f _quiver_java_major _quiver_is_jdk25 _quiver_find_jdk _quiver_setup_java
if (( _quiver_java_rc != 0 )); then
  unset _quiver_java_rc
  # return when sourced, exit when run as a script
  # shellcheck disable=SC2317  # exit is reached when run, not sourced
  return 1 2>/dev/null || exit 1
fi
unset _quiver_java_rc
