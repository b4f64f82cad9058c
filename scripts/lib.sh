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
