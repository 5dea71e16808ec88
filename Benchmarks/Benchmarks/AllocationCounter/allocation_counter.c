#include "AllocationCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);

/* One counter per thread, each on its own cache line, so counting costs a plain increment and no
 * locked instruction: the forwarding benchmark counts during its CPU-timed window, and libsrtp2 with
 * NSS allocates several times per packet. A thread claims a slot on its first allocation; slots are
 * never given back, so an exited thread's count stays in the total. Past `slot_count` threads, slots
 * are shared and a concurrent increment may be lost (the benchmark runs a handful of threads). */
enum { slot_count = 1024 };
typedef struct {
    _Atomic uint64_t allocations;
    char padding[64 - sizeof(uint64_t)];
} counter_slot;

static counter_slot slots[slot_count];
static atomic_uint next_slot;
/* initial-exec: the executable's TLS block exists from thread creation on, so reading it never
 * allocates (which, inside malloc, would recurse). */
static __thread counter_slot *thread_slot __attribute__((tls_model("initial-exec")));

static inline void count_allocation(void) {
    counter_slot *slot = thread_slot;
    if (slot == NULL) {
        slot = &slots[atomic_fetch_add_explicit(&next_slot, 1, memory_order_relaxed) % slot_count];
        thread_slot = slot;
    }
    /* Relaxed load and store: only this thread writes its slot, readers tolerate a stale value. */
    atomic_store_explicit(
        &slot->allocations, atomic_load_explicit(&slot->allocations, memory_order_relaxed) + 1, memory_order_relaxed);
}

void *malloc(size_t size) {
    count_allocation();
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_allocation();
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    count_allocation();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_allocation();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment < sizeof(void *) || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_allocation();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}

uint64_t allocation_counter_total(void) {
    uint64_t total = 0;
    unsigned used = atomic_load_explicit(&next_slot, memory_order_relaxed);
    if (used > slot_count) used = slot_count;
    for (unsigned index = 0; index < used; index++) {
        total += atomic_load_explicit(&slots[index].allocations, memory_order_relaxed);
    }
    return total;
}

uint64_t allocation_counter_this_thread(void) {
    counter_slot *slot = thread_slot;
    return slot == NULL ? 0 : atomic_load_explicit(&slot->allocations, memory_order_relaxed);
}

int allocation_counter_trim(void) {
    return malloc_trim(0);
}
