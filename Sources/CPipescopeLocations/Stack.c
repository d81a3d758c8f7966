#define _GNU_SOURCE
#include <pthread.h>
#include "PipescopeLocations.h"

// noinline: the walk starts from this function's own frame, whose caller is known.
// __builtin_frame_address(0) makes the compiler keep a frame pointer here whatever
// the optimization level.
__attribute__((noinline))
int pipescope_return_addresses(uintptr_t *out, int max, uintptr_t low, uintptr_t high) {
    uintptr_t fp = (uintptr_t)__builtin_frame_address(0);
    const uintptr_t word = sizeof(uintptr_t);
    int n = 0;
    while (n < max && fp >= low && fp <= high - 2 * word && (fp & (word - 1)) == 0) {
        const uintptr_t *frame = (const uintptr_t *)fp;
        uintptr_t next = frame[0];
        uintptr_t ret = frame[1];
        if (ret == 0) break;
        out[n++] = ret;
        if (next <= fp) break;  // the chain must climb the stack
        fp = next;
    }
    return n;
}

int pipescope_thread_stack(uintptr_t *low, uintptr_t *high) {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0) return -1;
    void *base = 0;
    size_t size = 0;
    int failed = pthread_attr_getstack(&attr, &base, &size);
    pthread_attr_destroy(&attr);
    if (failed || base == 0 || size == 0) return -1;
    *low = (uintptr_t)base;
    *high = (uintptr_t)base + size;
    return 0;
}
