#!/usr/bin/env bash
# Builds the libFuzzer targets and runs them; see docs/fuzzing.md.
#
#   ./Fuzz/run.sh                          every target, each for FUZZ_SECONDS (default 60) seconds
#   FUZZ_SECONDS=3600 ./Fuzz/run.sh        an hour each (make fuzz passes FUZZ_SECONDS through)
#   ./Fuzz/run.sh stun                     one target: rtpwire, stun, sdp, signaling or rtcp
#   ./Fuzz/run.sh rtpwire -jobs=4          extra arguments go to libFuzzer
#   ./Fuzz/run.sh stun .build-fuzz/stun/crashes/crash-<sha1>   replay that input once (rebuilding if stale)
#
# Each target is compiled with swiftc as one module with its fuzz entry point and its invariants inside
# it, outside SwiftPM and its .build folder; a module it imports (RTPWire and MediaControl for sdp) is
# compiled first, instrumented the same way, as a static library beside it. The invariants live in the
# module's test target (Tests/<Module>Tests/<Target>Fuzzer.swift), whose FuzzSeedTests replay every
# seed through them in make test; FUZZ_TARGET tells them they are compiled into the module itself. The rtcp target builds the whole media plane that way,
# on the OpenSSL libsrtp2 (scripts/build-libsrtp.sh, which make srtp runs). A target's corpus (.build-fuzz/<target>/corpus) is kept between runs
# and topped up from Fuzz/seeds/<target>; crashes land in .build-fuzz/<target>/crashes/.
set -euo pipefail

cd "$(dirname "$0")/.."

all_targets=(rtpwire stun sdp signaling rtcp)

# -assert-config Debug keeps the standard library's bounds checks on buffer subscripts and slices
# under -O, so a read past a buffer that stays inside its allocation still traps. lld, which the
# toolchain ships, avoids gold's warnings about ASan's local symbols.
flags=(-parse-as-library -sanitize=fuzzer,address -O -assert-config Debug -g)
if command -v ld.lld >/dev/null 2>&1; then flags+=(-use-ld=lld); fi

# The Swift runtime's backtracer would take the crash signal from libFuzzer, which then could not
# save the input; libFuzzer and ASan print their own stack.
export SWIFT_BACKTRACE=enable=no

# Where the C modules the media plane imports are found: the OpenSSL libsrtp2's headers, OpenSSL's,
# and CSystemShims, whose module map build_system_shims writes.
c_module_flags=(-I Sources/CSRTP -Xcc -I.build-srtp/prefix/include -I Sources/COpenSSL -I .build-fuzz/modules/CSystemShims)

# Builds the instrumented static library and module of $1 (from Sources/$1) when a source is newer.
build_dependency() {
    local module="$1" directory=".build-fuzz/modules"
    mkdir -p "$directory"
    if [ ! -f "$directory/lib$module.a" ] || [ -n "$(find "Sources/$module" Fuzz/run.sh -newer "$directory/lib$module.a" -print -quit)" ]; then
        echo "fuzz: building $directory/lib$module.a" >&2
        swiftc "${flags[@]}" -module-name "$module" -I "$directory" "${c_module_flags[@]}" \
            -emit-module -emit-module-path "$directory/$module.swiftmodule" \
            -emit-library -static "Sources/$module"/*.swift -o "$directory/lib$module.a" >&2
    fi
}

# CSystemShims (batched datagram I/O, the poller), compiled with clang under ASan, with a module map.
build_system_shims() {
    local directory=".build-fuzz/modules/CSystemShims" source
    if [ ! -f "$directory/libCSystemShims.a" ] || [ -n "$(find Sources/CSystemShims Fuzz/run.sh -newer "$directory/libCSystemShims.a" -print -quit)" ]; then
        echo "fuzz: building $directory/libCSystemShims.a" >&2
        mkdir -p "$directory/objects"
        for source in Sources/CSystemShims/*.c; do
            clang -O1 -g -fsanitize=address -I Sources/CSystemShims/include -c "$source" -o "$directory/objects/$(basename "$source" .c).o"
        done
        rm -f "$directory/libCSystemShims.a"
        ar rcs "$directory/libCSystemShims.a" "$directory"/objects/*.o
        printf 'module CSystemShims {\n    header "%s"\n    export *\n}\n' "$PWD/Sources/CSystemShims/include/CSystemShims.h" \
            > "$directory/module.modulemap"
    fi
}

# Builds target $1 when a source is newer than its binary (about 20-60 s); prints the binary's path.
build() {
    local target="$1" module dependencies=() extra=() entry invariants
    case "$target" in
        rtpwire) module=RTPWire; entry=Fuzz/RTPWireFuzzTarget.swift; invariants=Tests/RTPWireTests/RTPWireFuzzer.swift ;;
        stun) module=ICE; entry=Fuzz/STUNFuzzTarget.swift; invariants=Tests/ICETests/STUNFuzzer.swift; extra=(-I Sources/COpenSSL -lcrypto) ;;
        sdp)
            module=SessionDescription; dependencies=(RTPWire MediaControl); entry=Fuzz/SDPFuzzTarget.swift
            invariants=Tests/SessionDescriptionTests/SDPFuzzer.swift
            ;;
        signaling) module=SignalingProtocol; entry=Fuzz/SignalingFuzzTarget.swift; invariants=Tests/SignalingProtocolTests/SignalingFuzzer.swift ;;
        rtcp)
            module=MediaRouter; dependencies=(RTPWire MediaControl SRTP DTLS ICE Quality); entry=Fuzz/RTCPFuzzTarget.swift
            invariants=Tests/MediaRouterTests/RTCPFuzzer.swift
            [ -f .build-srtp/prefix/lib/libsrtp2.a ] || scripts/build-libsrtp.sh >&2
            build_system_shims
            extra=("${c_module_flags[@]}" -L .build-srtp/prefix/lib -L .build-fuzz/modules/CSystemShims -lCSystemShims -lssl -lcrypto)
            ;;
        *) echo "fuzz: unknown target $target; expected one of ${all_targets[*]}" >&2; exit 2 ;;
    esac
    local dependency sources=("Sources/$module"/*.swift)
    for dependency in "${dependencies[@]}"; do
        build_dependency "$dependency"
        extra+=(-I .build-fuzz/modules -L .build-fuzz/modules "-l$dependency")
        sources+=("Sources/$dependency")
    done
    local binary=".build-fuzz/$target/$target-fuzzer"
    mkdir -p ".build-fuzz/$target/corpus" ".build-fuzz/$target/crashes"
    if [ ! -x "$binary" ] || [ -n "$(find "${sources[@]}" "$invariants" "$entry" Fuzz/run.sh -newer "$binary" -print -quit)" ]; then
        echo "fuzz: building $binary" >&2
        swiftc "${flags[@]}" -D FUZZ_TARGET -module-name "$module" "${extra[@]}" "Sources/$module"/*.swift "$invariants" "$entry" -o "$binary" >&2
    fi
    echo "$binary"
}

# The longest input libFuzzer makes for target $1: a datagram, or a description or message of the
# size real ones have (Chromium's offers are 4-6 KB).
max_length() {
    case "$1" in
        sdp) echo 16384 ;;
        rtcp) echo 1400 ;;
        signaling) echo 8192 ;;
        *) echo 1500 ;;
    esac
}

# Runs target $1 for FUZZ_SECONDS; further arguments go to libFuzzer, or replay a saved input.
run() {
    local target="$1"
    shift
    local binary
    binary="$(build "$target")"
    if [ $# -gt 0 ] && [ -f "$1" ]; then
        echo "fuzz: replaying $*"
        "$binary" "$@"
        return
    fi
    local corpus=".build-fuzz/$target/corpus"
    cp -n Fuzz/seeds/"$target"/* "$corpus"/
    echo "fuzz: $target for ${FUZZ_SECONDS:-60} s on $corpus; crashes go to .build-fuzz/$target/crashes/"
    "$binary" "$corpus" \
        -max_total_time="${FUZZ_SECONDS:-60}" \
        -max_len="$(max_length "$target")" \
        -timeout=10 \
        -artifact_prefix=".build-fuzz/$target/crashes/" \
        -print_final_stats=1 \
        "$@"
}

if [ $# -gt 0 ] && [[ " ${all_targets[*]} " == *" $1 "* ]]; then
    run "$@"
else
    for target in "${all_targets[@]}"; do run "$target" "$@"; done
fi
