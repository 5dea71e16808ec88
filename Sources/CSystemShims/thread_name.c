#define _GNU_SOURCE
#include "CSystemShims.h"

#include <pthread.h>

int switchyard_name_current_thread(const char *name) { return pthread_setname_np(pthread_self(), name); }
