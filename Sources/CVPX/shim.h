#ifndef SWITCHYARD_CVPX_SHIM_H
#define SWITCHYARD_CVPX_SHIM_H
#include <vpx/vpx_encoder.h>
#include <vpx/vpx_decoder.h>
#include <vpx/vp8cx.h>
#include <vpx/vp8dx.h>

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
/* Encoder speed for real-time composing: -16 (slowest) to 16; higher is faster. */
static inline vpx_codec_err_t switchyard_vpx_set_cpu_used(vpx_codec_ctx_t *context, int speed) {
    return vpx_codec_control(context, VP8E_SET_CPUUSED, speed);
}
#endif
