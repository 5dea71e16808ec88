#include "CSystemShims.h"

#include <malloc.h>
#include <stdlib.h>

int switchyard_limit_malloc_arenas(int arenas) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) {
        return 0;
    }
    return mallopt(M_ARENA_MAX, arenas) == 1 ? 1 : 0;
}

int switchyard_return_free_memory(void) {
    return malloc_trim(0);
}
