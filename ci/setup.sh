#!/usr/bin/env bash
# Installs what a fresh Debian/Ubuntu machine lacks to run Quiver's OpenCL backend on the CPU:
#   libOpenCL.so (unversioned; JOCL loads it)  <- ocl-icd-opencl-dev
#   an OpenCL ICD in /etc/OpenCL/vendors/      <- pocl-opencl-icd (PoCL: OpenCL on the CPU)
#   clinfo                                     <- clinfo
# As root with apt-get it installs the missing packages; otherwise it prints the command to run
# and carries on (Quiver then runs CPU-only, and its tests say OpenCL is missing).
# Idempotent; prints nothing but `clinfo -l` when everything is present.
# Also checks that Maven (mvn) is installed.
#
# Usage: ci/setup.sh [-q|--quiet]     -q: no clinfo listing, no apt output, one-line hints only
set -euo pipefail

quiet=0
for arg in "$@"; do
  case "$arg" in
    -q|--quiet) quiet=1 ;;
    -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "ci/setup.sh: unknown argument: $arg" >&2; exit 2 ;;
  esac
done

say() { echo "ci/setup.sh: $*" >&2; }

ldconfig_cmd() {
  if command -v ldconfig >/dev/null 2>&1; then ldconfig "$@"
  elif [[ -x /sbin/ldconfig ]]; then /sbin/ldconfig "$@"
  else return 1
  fi
}

have_libopencl() {
  local d
  if ldconfig_cmd -p 2>/dev/null | grep -q 'libOpenCL\.so ('; then
    return 0
  fi
  for d in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib/aarch64-linux-gnu /usr/lib64 /usr/lib /usr/local/lib; do
    [[ -e "$d/libOpenCL.so" ]] && return 0
  done
  return 1
}

have_icd() {
  local f
  for f in "${OCL_ICD_VENDORS:-/etc/OpenCL/vendors}"/*.icd /etc/OpenCL/vendors/*.icd; do
    [[ -f "$f" ]] && return 0
  done
  return 1
}

have_clinfo() { command -v clinfo >/dev/null 2>&1; }

# --- OpenCL ---------------------------------------------------------------------------------
missing=()
have_libopencl || missing+=(ocl-icd-opencl-dev)
have_icd || missing+=(pocl-opencl-icd)
have_clinfo || missing+=(clinfo)

if (( ${#missing[@]} > 0 )); then
  if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing OpenCL packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # shellcheck disable=SC2317  # called through run_apt
    apt_install() {
      apt-get install -y -q --no-install-recommends "${missing[@]}"
    }
    # shellcheck disable=SC2317
    apt_update() {
      apt-get update -q
    }
    run_apt() {  # run "$@", output only on failure (or always when not quiet)
      local log rc=0
      if (( quiet )); then
        log=$(mktemp)
        "$@" >"$log" 2>&1 || rc=$?
        (( rc == 0 )) || cat "$log" >&2
        rm -f "$log"
        return "$rc"
      fi
      "$@"
    }
    # `apt-get update` only when the package lists are absent (fresh image) or stale
    # (install fails: lists refer to versions no longer on the mirror).
    shopt -s nullglob
    lists=(/var/lib/apt/lists/*_Packages*)
    shopt -u nullglob
    ok=0
    if (( ${#lists[@]} > 0 )) && run_apt apt_install; then
      ok=1
    elif run_apt apt_update && run_apt apt_install; then
      ok=1
    fi
    if (( ok )); then
      say "installed: ${missing[*]}"
    else
      say "WARNING: could not install ${missing[*]}; OpenCL will be unavailable (Quiver runs CPU-only)."
    fi
  else
    sudo_prefix=""
    [[ $(id -u) -eq 0 ]] || sudo_prefix="sudo "
    if command -v apt-get >/dev/null 2>&1; then
      hint="${sudo_prefix}apt-get install -y --no-install-recommends ${missing[*]}"
    else
      hint="the OpenCL ICD loader with its unversioned libOpenCL.so, PoCL (or another OpenCL driver) and clinfo from your distribution (Debian/Ubuntu: apt-get install -y --no-install-recommends ${missing[*]}; Fedora: dnf install ocl-icd-devel pocl clinfo)"
    fi
    if (( quiet )); then
      say "OpenCL is not fully installed (missing: ${missing[*]}); to enable it run: $hint"
    else
      say "OpenCL is not fully installed; missing packages: ${missing[*]}"
      say "  (not root or no apt-get, so not installing them). To enable OpenCL, run:"
      say "    $hint"
      say "  Continuing without: Quiver runs CPU-only, and the OpenCL tests report OpenCL as missing."
    fi
  fi
fi

# --- Maven ----------------------------------------------------------------------------------
if ! command -v mvn >/dev/null 2>&1; then
  cat >&2 <<'EOF'
ci/setup.sh: ERROR: Maven (mvn) is not installed or not on PATH; Quiver builds with Maven 3.8 or newer.
  Debian/Ubuntu:  apt-get install -y --no-install-recommends maven
  Elsewhere:      unpack https://maven.apache.org/download.cgi and add its bin/ directory to PATH
EOF
  exit 1
fi

# --- Report ---------------------------------------------------------------------------------
if (( ! quiet )); then
  if have_clinfo; then
    echo "OpenCL platforms and devices (clinfo -l):"
    clinfo -l 2>&1 || echo "  (clinfo -l failed: no usable OpenCL platform)"
  else
    echo "OpenCL: clinfo not installed, cannot list platforms."
  fi
fi
exit 0
