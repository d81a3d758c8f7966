#ifndef PIPESCOPE_MEMORY_H
#define PIPESCOPE_MEMORY_H

/// Gives the memory malloc holds free back to the system (glibc's malloc_trim(0)); 0
/// where glibc is not the allocator. The inspector frees as much as it allocates once
/// its history is full (evicted events, folded batches), and glibc keeps freed pages
/// resident: without this its resident memory grows well past what it uses.
int pipescope_release_free_memory(void);

#endif
