#!/usr/bin/env bash
# Puts the loopback forwarding figures of the two libsrtp2 builds side by side (docs/benchmark.md):
# for each profile, forwarded packets per CPU-second with the OpenSSL build and with the system build,
# and their ratio (issue 8's target: at least 2x with AES_CM_128_HMAC_SHA1_80).
# Usage: scripts/forwarding-summary.sh <ForwardingBenchmark output, OpenSSL> <the same, system>
set -euo pipefail

openssl="${1:?usage: $0 <openssl output> <system output>}"
system="${2:?usage: $0 <openssl output> <system output>}"

# The figure of line kind $2 (forward, forward_without_segmentation) for profile $3 in file $1.
figure() {
    awk -v kind="$2" -v profile="$3" '$1 == kind && $2 == profile {
        sub("forwarded_pps_per_cpu_second=", "", $4); print $4 }' "$1"
}

echo
echo "== forwarding, OpenSSL build against system build (forwarded packets per CPU-second, 1 -> 20)"
for kind in forward forward_without_segmentation; do
    for profile in AEAD_AES_128_GCM AES_CM_128_HMAC_SHA1_80; do
        fast=$(figure "$openssl" "$kind" "$profile")
        slow=$(figure "$system" "$kind" "$profile")
        [ -n "$fast" ] && [ -n "$slow" ] || continue
        awk -v kind="$kind" -v profile="$profile" -v fast="$fast" -v slow="$slow" \
            'BEGIN { printf "srtp_builds %s %s openssl=%d system=%d ratio=%.2f\n", kind, profile, fast, slow, fast / slow }'
    done
done
