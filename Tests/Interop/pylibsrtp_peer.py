#!/usr/bin/env python3
"""The srtp_peer.c line protocol over pylibsrtp (pip install pylibsrtp), whose wheel bundles its own
libsrtp and OpenSSL: a second, independently built SRTP implementation for interop tests.

One request per stdin line, one reply per stdout line (flushed):
  protect|unprotect rtp|rtcp <profile> <master key+salt hex> <packet hex>
  -> ok <packet hex>  |  error <srtp_err_status_t number>
Each line gets a fresh session (window 1024, repeated transmissions allowed, any inbound/outbound SSRC).
A malformed line, an unknown profile, a key of the wrong length, or a packet longer than pylibsrtp's
1500-byte buffer allows (1356 bytes for protect rtp, 1352 for protect rtcp) answers `error 2`
(srtp_err_status_bad_param).
"""
import sys

import pylibsrtp
from pylibsrtp import Policy, Session

PROFILES = {  # name: (pylibsrtp profile, master key+salt length)
    "AES_CM_128_HMAC_SHA1_80": (Policy.SRTP_PROFILE_AES128_CM_SHA1_80, 30),
    "AES_CM_128_HMAC_SHA1_32": (Policy.SRTP_PROFILE_AES128_CM_SHA1_32, 30),
    "AEAD_AES_128_GCM": (Policy.SRTP_PROFILE_AEAD_AES_128_GCM, 28),
    "AEAD_AES_256_GCM": (Policy.SRTP_PROFILE_AEAD_AES_256_GCM, 44),
}
BAD_PARAM = 2


def handle(line: str) -> str:
    try:
        operation, kind, profile, key_hex, packet_hex = line.split()
        if operation not in ("protect", "unprotect") or kind not in ("rtp", "rtcp"):
            raise ValueError(line)
        protect = operation == "protect"
        srtp_profile, key_length = PROFILES[profile]
        key = bytes.fromhex(key_hex)
        if len(key) != key_length:  # pylibsrtp itself accepts longer keys
            raise ValueError(key_hex)
        policy = Policy(
            key=key,
            ssrc_type=Policy.SSRC_ANY_OUTBOUND if protect else Policy.SSRC_ANY_INBOUND,
            srtp_profile=srtp_profile,
        )
        policy.window_size = 1024
        policy.allow_repeat_tx = True
        session = Session(policy=policy)
        packet = bytes.fromhex(packet_hex)
        if protect:
            result = session.protect_rtcp(packet) if kind == "rtcp" else session.protect(packet)
        else:
            result = session.unprotect_rtcp(packet) if kind == "rtcp" else session.unprotect(packet)
        return "ok " + result.hex()
    except pylibsrtp.Error as error:  # carries libsrtp's message, not its number
        message = str(error)
        return f"error {pylibsrtp.ERRORS.index(message) if message in pylibsrtp.ERRORS else 1}"
    except (ValueError, KeyError):
        return f"error {BAD_PARAM}"


def main() -> None:
    for line in sys.stdin:
        print(handle(line), flush=True)


if __name__ == "__main__":
    main()
