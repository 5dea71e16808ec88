#include "CSystemShims.h"

#include <malloc.h>
#include <stdlib.h>

int switchyard_limit_malloc_arenas(int arenas) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) {
        return 0;
    }
    return mallopt(M_ARENA_MAX, arenas) == 1 ? 1 : 0;
}
