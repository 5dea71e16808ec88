#include "CSystemShims.h"

#include <sys/resource.h>

long long switchyard_raise_open_file_limit(void) {
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0) {
        return -1;
    }
    if (limit.rlim_cur < limit.rlim_max) {
        limit.rlim_cur = limit.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0) {
            return -1;
        }
    }
    return (long long)limit.rlim_cur;
}
