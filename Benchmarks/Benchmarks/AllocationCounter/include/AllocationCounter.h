#ifndef SWITCHYARD_ALLOCATION_COUNTER_H
#define SWITCHYARD_ALLOCATION_COUNTER_H

#include <stdint.h>

/* Counts heap allocations of the whole process. The benchmark executable defines malloc, calloc,
 * realloc, aligned_alloc, memalign and posix_memalign itself; the dynamic linker resolves every
 * library's calls (Swift runtime, libdispatch, libsrtp2, NSS) to these, and they forward to glibc's
 * __libc_* entry points, so memory stays glibc's and free needs no wrapper. glibc keeps no count of
 * its own and the preload-based interposers need LD_PRELOAD, which `swift run` does not set. */

/// Allocation calls made by every thread since the process started.
uint64_t allocation_counter_total(void);

/// Allocation calls made by the calling thread since it started.
uint64_t allocation_counter_this_thread(void);

/// Returns free heap memory to the system (glibc's malloc_trim(0), which Swift's Glibc module does not
/// import); true when some was released.
int allocation_counter_trim(void);

#endif
