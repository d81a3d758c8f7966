#ifndef PIPESCOPE_CMALLOCINFO_H
#define PIPESCOPE_CMALLOCINFO_H
#include <stddef.h>

/// malloc's bytes in use now (small blocks and mapped ones, glibc's mallinfo2), for the
/// inspector memory benchmark; 0 where glibc is not the allocator.
size_t pipescope_heap_in_use(void);

#endif
