#!/usr/bin/env bash
# Builds libsrtp2 against OpenSSL into .build-srtp/prefix (issue 8). Debian's libsrtp2 uses NSS, which
# costs 2-4x per packet; the same source with OpenSSL crypto runs at hardware (AES-NI) speed.
# The source is Debian's own package, fetched by apt through a private sources file and lists dir, so
# apt checks the signed InRelease and every file hash; the script also pins the sha256 of the orig
# tarball and the .dsc. Nothing outside .build-srtp/ is written except missing -dev packages.
# Usage: scripts/build-libsrtp.sh   (then PKG_CONFIG_PATH=$PWD/.build-srtp/prefix/lib/pkgconfig)
set -Eeuo pipefail

DEBIAN_VERSION=2.5.0-3 # libsrtp2 in bookworm
ORIG_SHA256=8a43ef8e9ae2b665292591af62aa1a4ae41e468b6d98d8258f91478735da4e09
DSC_SHA256=3b77c17dc1cf3135fbdaaf4cb0c5f4ae69793dd4cea63b9e466286e7687c861e
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian} # the mirror /etc/apt/sources.list.d/debian.sources uses
SUITE=bookworm

root=$(cd "$(dirname "$0")/.." && pwd)
work=$root/.build-srtp
prefix=$work/prefix
stamp=$work/stamp
want="libsrtp2 $DEBIAN_VERSION openssl $prefix recipe 2" # a moved checkout rebuilds: the .pc holds absolute paths

[[ -f $stamp && $(<"$stamp") == "$want" && -f $prefix/lib/libsrtp2.a && -f $prefix/lib/pkgconfig/libsrtp2.pc ]] && exit 0

trap 'echo "build-libsrtp: FAILED (line $LINENO: $BASH_COMMAND)" >&2' ERR
die() { echo "build-libsrtp: $*" >&2; exit 1; }

missing=()
for package in dpkg-dev libssl-dev; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "build-libsrtp: installing missing packages: ${missing[*]}"
    sudo=""; [[ $(id -u) -eq 0 ]] || sudo=sudo
    $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

echo "build-libsrtp: fetching Debian source libsrtp2=$DEBIAN_VERSION from $MIRROR"
rm -rf "$work" && mkdir -p "$work/apt/lists/partial" "$work/apt/cache/archives/partial" "$work/src"
echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" >"$work/apt/sources.list"
# Private sources, lists and cache: the system's apt state is neither read for sources nor written.
# Sandbox user root: the unprivileged _apt user may not be able to write into the checkout.
apt=(apt-get -qq -o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$work/apt/lists" -o Dir::Cache="$work/apt/cache" -o APT::Sandbox::User=root)
"${apt[@]}" update --error-on=any || die "apt-get update of $MIRROR $SUITE (deb-src) failed or was not verified"
(cd "$work/src" && "${apt[@]}" source --download-only "libsrtp2=$DEBIAN_VERSION") ||
    die "apt-get source libsrtp2=$DEBIAN_VERSION failed (download or hash verification)"
rm -rf "$work/apt" # 20 MB of Sources index, no longer needed

cd "$work/src"
printf '%s  %s\n' "$ORIG_SHA256" "libsrtp2_${DEBIAN_VERSION%-*}.orig.tar.gz" "$DSC_SHA256" "libsrtp2_$DEBIAN_VERSION.dsc" |
    sha256sum --check --strict --quiet || die "sha256 of the downloaded source does not match the pinned value"
# The maintainer's .dsc signature cannot be checked without debian-keyring (gpgv says so on stderr, kept
# in a log); the .dsc is covered by apt's signed index and the pin above. dpkg-source checks the hashes.
dpkg-source -q -x "libsrtp2_$DEBIAN_VERSION.dsc" tree 2>dpkg-source.log || { cat dpkg-source.log >&2; die "dpkg-source -x failed"; }

cd tree
./configure -q --enable-openssl --prefix="$prefix"
make -s -j"$(nproc)" libsrtp2.a
make -s install # copies the headers, libsrtp2.a (no shared library was built) and libsrtp2.pc
# SwiftPM ignores Libs.private, so libcrypto goes in Libs.
sed -i -e 's|^Libs:.*|Libs: -L${libdir} -lsrtp2 -lcrypto|' "$prefix/lib/pkgconfig/libsrtp2.pc"
# SwiftPM drops -D flags from pkg-config, so the build announces itself with a header that only this
# include directory has (Sources/CSRTP/shim.h looks for it).
echo '#define SWITCHYARD_SRTP_OPENSSL 1' >"$prefix/include/srtp2/switchyard_build.h"
echo "$want" >"$stamp"
echo "build-libsrtp: installed libsrtp2 $DEBIAN_VERSION (OpenSSL) in $prefix"
