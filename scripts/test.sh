#!/usr/bin/env bash
# Runs the whole test suite (release build: the physics tests run many steps).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release --all-targets
