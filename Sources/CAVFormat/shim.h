#ifndef SWITCHYARD_CAVFORMAT_SHIM_H
#define SWITCHYARD_CAVFORMAT_SHIM_H
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/dict.h>
#include <libavutil/mem.h>
#include <libavutil/error.h>
#include <libswscale/swscale.h>

/* AVERROR and AVERROR_EOF are macros Swift cannot import. */
static inline int switchyard_averror_eof(void) { return AVERROR_EOF; }
#endif
