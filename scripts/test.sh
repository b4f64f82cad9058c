#!/usr/bin/env bash
# The whole test suite: Rust tests (engine and C ABI), then the C/C++ examples and tests under
# CTest, linked dynamically and statically.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_cmake
cd "$root"
cargo test --release --all-targets
cmake -S examples_c -B build/examples -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/examples -j 2
ctest --test-dir build/examples --output-on-failure
