#!/usr/bin/env python3
"""Cross-checks SRTP peers that speak the srtp_peer.c line protocol, e.g. srtp_peer built against Debian's
libsrtp2 (NSS), srtp_peer built against .build-srtp (OpenSSL), and pylibsrtp_peer.py.

For every profile, RTP and RTCP, and every ordered pair of peers: random packets protected by one peer must
unprotect to the original on the other, all peers must produce byte-identical protected packets (fresh
sessions make SRTP deterministic), and a packet with one flipped bit must fail (error 7, auth_fail, unless the flip breaks the header).

Usage: cross_check.py [--rounds N] '<peer command>' '<peer command>' ...
"""
import argparse
import itertools
import os
import random
import shlex
import subprocess
import sys

KEY_LENGTHS = {"AES_CM_128_HMAC_SHA1_80": 30, "AES_CM_128_HMAC_SHA1_32": 30, "AEAD_AES_128_GCM": 28, "AEAD_AES_256_GCM": 44}


class Peer:
    def __init__(self, command):
        self.name = command
        self.process = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, operation, kind, profile, key, packet):
        self.process.stdin.write(f"{operation} {kind} {profile} {key.hex()} {packet.hex()}\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline().split()
        return (reply[0], bytes.fromhex(reply[1]) if reply[0] == "ok" else int(reply[1]))


def rtp_packet(generator):
    header = bytes([0x80, generator.choice([96, 111, 0xE0])]) + generator.randbytes(10)
    return header + generator.randbytes(generator.randint(0, 1200))


def rtcp_packet(generator):
    blocks = generator.randint(0, 31)  # a sender report with up to 31 report blocks
    return bytes([0x80 | blocks, 200]) + (6 + 6 * blocks).to_bytes(2, "big") + generator.randbytes(24 + 24 * blocks)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("peers", nargs="+")
    arguments = parser.parse_args()
    peers = [Peer(command) for command in arguments.peers]
    generator = random.Random(os.environ.get("SEED", "switchyard"))
    failures = 0
    for profile, kind in itertools.product(KEY_LENGTHS, ("rtp", "rtcp")):
        checked = 0
        for _ in range(arguments.rounds):
            key = generator.randbytes(KEY_LENGTHS[profile])
            packet = rtp_packet(generator) if kind == "rtp" else rtcp_packet(generator)
            protected = [peer.ask("protect", kind, profile, key, packet) for peer in peers]
            if any(result != protected[0] or result[0] != "ok" for result in protected):
                failures += 1
                print(f"FAIL {profile} {kind}: protect differs: {[r[0] for r in protected]}", file=sys.stderr)
                continue
            tampered = bytearray(protected[0][1])
            tampered[generator.randrange(len(tampered))] ^= 1 << generator.randrange(8)
            for protector, unprotector in itertools.permutations(range(len(peers)), 2):
                back = peers[unprotector].ask("unprotect", kind, profile, key, protected[protector][1])
                rejected = peers[unprotector].ask("unprotect", kind, profile, key, bytes(tampered))
                if back != ("ok", packet) or rejected[0] != "error":
                    failures += 1
                    print(f"FAIL {profile} {kind}: {peers[protector].name} -> {peers[unprotector].name}:"
                          f" {back[0]} {back[1] if back[0] == 'error' else ''}, tampered {rejected}", file=sys.stderr)
                else:
                    checked += 1
        print(f"{profile:24} {kind:4}: {checked} protect->unprotect pairs ok")
    print("FAILED" if failures else "all ok", f"({failures} failures)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
