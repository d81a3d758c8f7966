#ifndef PIPESCOPE_CMALLOCINFO_H
#define PIPESCOPE_CMALLOCINFO_H
#include <stddef.h>

/// malloc's bytes in use now (small blocks and mapped ones, glibc's mallinfo2), for the
/// inspector memory benchmark; 0 where glibc is not the allocator.
size_t pipescope_heap_in_use(void);

/// Gives the memory malloc holds free back to the system (glibc's malloc_trim(0)), so
/// that resident memory counts what is in use; 0 where glibc is not the allocator.
int pipescope_malloc_trim(void);

#endif
