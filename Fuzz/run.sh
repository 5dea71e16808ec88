#!/usr/bin/env bash
# Builds the RTPWire libFuzzer target and runs it; see docs/fuzzing.md.
#
#   ./Fuzz/run.sh                      fuzz for FUZZ_SECONDS (default 60) seconds
#   FUZZ_SECONDS=3600 ./Fuzz/run.sh    fuzz for an hour (make fuzz passes FUZZ_SECONDS through)
#   ./Fuzz/run.sh -jobs=4              extra arguments go to libFuzzer
#   ./Fuzz/run.sh .build-fuzz/crashes/crash-<sha1>   replay that input once (rebuilding if stale)
#
# RTPWire has no dependencies, so it is compiled with swiftc as one module with the fuzz target
# inside it, outside SwiftPM and its .build folder. The corpus (.build-fuzz/corpus) is kept between
# runs and topped up from Fuzz/seeds; crashes land in .build-fuzz/crashes/.
set -euo pipefail

cd "$(dirname "$0")/.."

out=.build-fuzz
binary=$out/rtpwire-fuzzer
corpus=$out/corpus
crashes=$out/crashes

mkdir -p "$corpus" "$crashes"

# -assert-config Debug keeps the standard library's bounds checks on buffer subscripts and slices
# under -O, so a read past a packet that stays inside its allocation still traps. lld, which the
# toolchain ships, avoids gold's warnings about ASan's local symbols.
flags=(-parse-as-library -sanitize=fuzzer,address -O -assert-config Debug -g)
if command -v ld.lld >/dev/null 2>&1; then flags+=(-use-ld=lld); fi

# Rebuilt (about 20 s) only when a source is newer than the binary.
if [ ! -x "$binary" ] || [ -n "$(find Sources/RTPWire Fuzz/RTPWireFuzzTarget.swift Fuzz/run.sh -newer "$binary" -print -quit)" ]; then
    echo "fuzz: building $binary"
    swiftc "${flags[@]}" -module-name RTPWire Sources/RTPWire/*.swift Fuzz/RTPWireFuzzTarget.swift -o "$binary"
fi

# The Swift runtime's backtracer would take the crash signal from libFuzzer, which then could not
# save the input; libFuzzer and ASan print their own stack.
export SWIFT_BACKTRACE=enable=no

if [ $# -gt 0 ] && [ -f "$1" ]; then
    echo "fuzz: replaying $*"
    exec "$binary" "$@"
fi

cp -n Fuzz/seeds/* "$corpus"/

echo "fuzz: running for ${FUZZ_SECONDS:-60} s on $corpus; crashes go to $crashes/"
exec "$binary" "$corpus" \
    -max_total_time="${FUZZ_SECONDS:-60}" \
    -max_len=1500 \
    -timeout=10 \
    -artifact_prefix="$crashes/" \
    -print_final_stats=1 \
    "$@"
