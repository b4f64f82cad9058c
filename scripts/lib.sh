# Shared by the scripts: repository root and a cmake that is present (installed if possible).
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need_cmake() {
  if command -v cmake >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "cmake not found: installing it with apt-get" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq cmake >/dev/null
  else
    echo "cmake not found. Install it, e.g.: sudo apt-get install -y cmake" >&2
    exit 1
  fi
}

# ODE (Debian's libode-dev) for the side-by-side benchmark examples_c/ode_peers.c: optional,
# installed when possible, skipped by CMake when absent.
want_ode() {
  if pkg-config --exists ode 2>/dev/null; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ODE not found: installing libode-dev with apt-get (optional)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq pkg-config libode-dev >/dev/null) ||
      echo "libode-dev could not be installed: ode_peers is skipped" >&2
  fi
  return 0
}

# Mono (Debian's mono-mcs and mono-runtime) for the C# bindings test: optional, installed when
# possible, skipped by CMake when absent.
want_mono() {
  if command -v mcs >/dev/null 2>&1 && command -v mono >/dev/null 2>&1; then return 0; fi
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Mono not found: installing mono-mcs and mono-runtime with apt-get (optional)" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mono-mcs mono-runtime >/dev/null 2>&1) ||
      echo "Mono could not be installed: the C# bindings test is skipped" >&2
  fi
  return 0
}

# The same, required (CI): fails when Mono is missing and cannot be installed.
need_mono() {
  want_mono
  if ! command -v mcs >/dev/null 2>&1 || ! command -v mono >/dev/null 2>&1; then
    echo "Mono not found (mcs, mono). Install it, e.g.: sudo apt-get install -y mono-mcs mono-runtime" >&2
    exit 1
  fi
}
