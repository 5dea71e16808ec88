// An SRTP peer for interop tests: libsrtp2 (whichever build pkg-config finds) behind a line protocol, for a
// Swift test to drive as a subprocess. One request per stdin line, one reply per stdout line (flushed):
//
//   protect|unprotect rtp|rtcp <profile> <master key+salt hex> <packet hex>
//   -> ok <packet hex>  |  error <srtp_err_status_t number>
//
// Profiles by their libsrtp / RFC names: AES_CM_128_HMAC_SHA1_80, AES_CM_128_HMAC_SHA1_32 (SRTCP keeps the
// 80-bit tag, as RFC 5764 says), AEAD_AES_128_GCM, AEAD_AES_256_GCM. Key+salt is 30, 30, 28 or 44 bytes.
// Each line gets a fresh session (window 1024, repeated transmissions allowed, any inbound/outbound SSRC),
// so SRTCP indices and replay state do not carry over between lines. A malformed line, an unknown
// profile or a key of the wrong length answers `error 2` (srtp_err_status_bad_param).
//
// Build: cc -O2 -o srtp_peer Tests/Interop/srtp_peer.c $(pkg-config --cflags --libs libsrtp2)
#define _GNU_SOURCE
#include <srtp2/srtp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *name;
    srtp_profile_t profile;
    size_t key_length;
} profiles[] = {
    {"AES_CM_128_HMAC_SHA1_80", srtp_profile_aes128_cm_sha1_80, 30},
    {"AES_CM_128_HMAC_SHA1_32", srtp_profile_aes128_cm_sha1_32, 30},
    {"AEAD_AES_128_GCM", srtp_profile_aead_aes_128_gcm, 28},
    {"AEAD_AES_256_GCM", srtp_profile_aead_aes_256_gcm, 44},
};

static int nibble(char digit) {
    if (digit >= '0' && digit <= '9') return digit - '0';
    if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
    if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
    return -1;
}

/// Decodes `hex` into a new buffer with `spare` extra bytes; returns NULL on odd length or a bad digit.
static unsigned char *from_hex(const char *hex, size_t *length, size_t spare) {
    size_t digits = strlen(hex);
    if (digits % 2 != 0) return NULL;
    unsigned char *bytes = malloc(digits / 2 + spare + 1);
    for (size_t index = 0; index < digits / 2; index++) {
        int high = nibble(hex[2 * index]), low = nibble(hex[2 * index + 1]);
        if (high < 0 || low < 0) {
            free(bytes);
            return NULL;
        }
        bytes[index] = (unsigned char)(high << 4 | low);
    }
    *length = digits / 2;
    return bytes;
}

static srtp_err_status_t handle(char *line, unsigned char **packet, int *length) {
    char *words[5], *save = NULL;
    int count = 0;
    for (char *word = strtok_r(line, " \t\r\n", &save); word; word = strtok_r(NULL, " \t\r\n", &save)) {
        if (count == 5) return srtp_err_status_bad_param;
        words[count++] = word;
    }
    if (count != 5) return srtp_err_status_bad_param;
    int protect = strcmp(words[0], "protect") == 0, rtcp = strcmp(words[1], "rtcp") == 0;
    if ((!protect && strcmp(words[0], "unprotect") != 0) || (!rtcp && strcmp(words[1], "rtp") != 0)) return srtp_err_status_bad_param;
    size_t profile = 0;
    while (profile < sizeof profiles / sizeof profiles[0] && strcmp(profiles[profile].name, words[2]) != 0) profile++;
    if (profile == sizeof profiles / sizeof profiles[0]) return srtp_err_status_bad_param;

    size_t key_length, packet_length;
    unsigned char *key = from_hex(words[3], &key_length, 0);
    *packet = from_hex(words[4], &packet_length, SRTP_MAX_TRAILER_LEN);
    if (!key || !*packet || key_length != profiles[profile].key_length) {
        free(key);
        return srtp_err_status_bad_param;
    }
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    srtp_crypto_policy_set_from_profile_for_rtp(&policy.rtp, profiles[profile].profile);
    srtp_crypto_policy_set_from_profile_for_rtcp(&policy.rtcp, profiles[profile].profile);
    policy.ssrc.type = protect ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = key;
    policy.window_size = 1024;
    policy.allow_repeat_tx = 1;
    srtp_t session;
    srtp_err_status_t status = srtp_create(&session, &policy);
    free(key);
    if (status != srtp_err_status_ok) return status;
    *length = (int)packet_length;
    if (protect) {
        status = rtcp ? srtp_protect_rtcp(session, *packet, length) : srtp_protect(session, *packet, length);
    } else {
        status = rtcp ? srtp_unprotect_rtcp(session, *packet, length) : srtp_unprotect(session, *packet, length);
    }
    srtp_dealloc(session);
    return status;
}

int main(void) {
    if (srtp_init() != srtp_err_status_ok) {
        fprintf(stderr, "srtp_peer: srtp_init failed\n");
        return 1;
    }
    char *line = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, stdin) != -1) {
        unsigned char *packet = NULL;
        int length = 0;
        srtp_err_status_t status = handle(line, &packet, &length);
        if (status == srtp_err_status_ok) {
            fputs("ok ", stdout);
            for (int index = 0; index < length; index++) printf("%02x", packet[index]);
            putchar('\n');
        } else {
            printf("error %d\n", (int)status);
        }
        fflush(stdout);
        free(packet);
    }
    free(line);
    srtp_shutdown();
    return 0;
}
