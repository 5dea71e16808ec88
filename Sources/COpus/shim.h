#ifndef SWITCHYARD_COPUS_SHIM_H
#define SWITCHYARD_COPUS_SHIM_H
#include <opus/opus.h>

/* opus_encoder_ctl is variadic and so does not import into Swift. */
static inline int switchyard_opus_set_bitrate(OpusEncoder *encoder, opus_int32 bitsPerSecond) {
    return opus_encoder_ctl(encoder, OPUS_SET_BITRATE(bitsPerSecond));
}
#endif
