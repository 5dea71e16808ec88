#ifndef SWITCHYARD_CVPX_SHIM_H
#define SWITCHYARD_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>
#include <string.h>

/* vpx_codec_enc_init and vpx_codec_dec_init are function-like macros, which Swift cannot import. */
static inline vpx_codec_err_t switchyard_vpx_encoder_init(vpx_codec_ctx_t *context,
                                                          const vpx_codec_enc_cfg_t *config) {
    return vpx_codec_enc_init(context, vpx_codec_vp8_cx(), config, 0);
}

static inline vpx_codec_err_t switchyard_vpx_decoder_init(vpx_codec_ctx_t *context) {
    return vpx_codec_dec_init(context, vpx_codec_vp8_dx(), NULL, 0);
}
/* vpx_codec_control is a function-like macro too. */
static inline vpx_codec_err_t switchyard_vpx_set_max_intra_bitrate_pct(vpx_codec_ctx_t *context, unsigned int percent) {
    return vpx_codec_control(context, VP8E_SET_MAX_INTRA_BITRATE_PCT, percent);
}
/* Copies every frame the encoder has ready after vpx_codec_encode into `out`, one after the other:
   the bytes written, or -1 when they do not fit in `capacity`; `*is_key` tells whether one is a key
   frame. */
static inline long switchyard_vpx_take_frames(vpx_codec_ctx_t *context, uint8_t *out, size_t capacity, int *is_key) {
    size_t written = 0;
    vpx_codec_iter_t iterator = NULL;
    const vpx_codec_cx_pkt_t *packet;
    *is_key = 0;
    while ((packet = vpx_codec_get_cx_data(context, &iterator)) != NULL) {
        if (packet->kind != VPX_CODEC_CX_FRAME_PKT) continue;
        if (written + packet->data.frame.sz > capacity) return -1;
        memcpy(out + written, packet->data.frame.buf, packet->data.frame.sz);
        written += packet->data.frame.sz;
        if (packet->data.frame.flags & VPX_FRAME_IS_KEY) *is_key = 1;
    }
    return (long)written;
}

/* Encoder speed for real-time composing: -16 (slowest) to 16; higher is faster. */
static inline vpx_codec_err_t switchyard_vpx_set_cpu_used(vpx_codec_ctx_t *context, int speed) {
    return vpx_codec_control(context, VP8E_SET_CPUUSED, speed);
}
#endif
