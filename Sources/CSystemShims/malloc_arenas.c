#include "CSystemShims.h"

#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int switchyard_limit_malloc_arenas(int arenas) {
    if (getenv("MALLOC_ARENA_MAX") != NULL) {
        return 0;
    }
    return mallopt(M_ARENA_MAX, arenas) == 1 ? 1 : 0;
}

int switchyard_return_free_memory(void) {
    return malloc_trim(0);
}

long long switchyard_freed_resident_bytes(void) {
    /* Read with open/read into the stack, not stdio: measuring must not allocate. */
    char text[128];
    int descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (descriptor < 0) {
        return -1;
    }
    ssize_t length = read(descriptor, text, sizeof text - 1);
    close(descriptor);
    if (length <= 0) {
        return -1;
    }
    text[length] = '\0';
    long long size = 0, resident = 0, shared = 0;
    if (sscanf(text, "%lld %lld %lld", &size, &resident, &shared) != 3) {
        return -1;
    }
    long long anonymous = (resident - shared) * (long long)sysconf(_SC_PAGESIZE);
    struct mallinfo2 info = mallinfo2();
    return anonymous - (long long)(info.uordblks + info.hblkhd);
}
