#!/usr/bin/env bash
# Builds the library (cargo, release) and the C examples (cmake), then runs hello_pendulum.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmake
cmake -S "$root/examples_c" -B "$root/build/examples" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build/examples" --target hello_pendulum_shared -j 2
"$root/build/examples/hello_pendulum_shared"
