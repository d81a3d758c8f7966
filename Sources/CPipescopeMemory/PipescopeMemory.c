#include "PipescopeMemory.h"
// Any libc header defines __GLIBC__ where glibc is the C library; malloc.h is glibc's.
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

int pipescope_release_free_memory(void) {
#if defined(__GLIBC__)
    return malloc_trim(0);
#else
    return 0;
#endif
}
