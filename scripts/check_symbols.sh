#!/usr/bin/env bash
# Compares the functions the shared library exports with the functions include/tenon.h declares
# and those bindings/csharp/Tenon.Native.g.cs imports, and checks the SONAME. Fails on any
# difference.
#   scripts/check_symbols.sh [path/to/libtenon.so]   (default: target/release/libtenon.so)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
lib="${1:-${CARGO_TARGET_DIR:-$root/target}/release/libtenon.so}"
header="$root/include/tenon.h"
[ -f "$lib" ] || { echo "check_symbols: $lib not found (run: cargo build --release)" >&2; exit 1; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# every defined dynamic symbol, whatever its type: anything that is not declared is a leak
nm -D --defined-only "$lib" | awk '{print $NF}' | sed 's/@.*//' | sort -u > "$tmp/exported"
# function declarations: a line ending in ");" whose name is tenon_<...>( (one per line in the header)
grep -E '^[A-Za-z_].*\btenon_[a-z0-9_]+\(.*\);$' "$header" \
  | sed -E 's/^.*\b(tenon_[a-z0-9_]+)\(.*$/\1/' | sort -u > "$tmp/declared"

status=0
if ! diff -u "$tmp/declared" "$tmp/exported" > "$tmp/diff"; then
  echo "check_symbols: exported symbols (+) and header declarations (-) differ:" >&2
  grep -E '^[-+][a-z_]' "$tmp/diff" >&2 || true
  status=1
fi
# the C# declarations: one DllImport entry point per function
grep -oE 'EntryPoint = "tenon_[a-z0-9_]+"' "$root/bindings/csharp/Tenon.Native.g.cs" \
  | sed -E 's/.*"(.*)"/\1/' | sort -u > "$tmp/csharp"
if ! diff -u "$tmp/declared" "$tmp/csharp" > "$tmp/diff"; then
  echo "check_symbols: C# entry points (+) and header declarations (-) differ:" >&2
  grep -E '^[-+][a-z_]' "$tmp/diff" >&2 || true
  status=1
fi
soname="$(readelf -d "$lib" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
expected="$(sed -n 's/^#define TENON_SONAME "\(.*\)"/\1/p' "$root/include/tenon.h")"
if [ -z "$expected" ] || [ "$soname" != "$expected" ]; then
  echo "check_symbols: SONAME is '$soname', the header names '$expected'" >&2
  status=1
fi
[ $status -eq 0 ] && echo "check_symbols: $(wc -l < "$tmp/declared") functions, header, library and C# declarations agree; SONAME $soname"
exit $status
