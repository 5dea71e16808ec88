#ifndef SWITCHYARD_CSRTP_SHIM_H
#define SWITCHYARD_CSRTP_SHIM_H
#include <srtp2/srtp.h>
#endif
