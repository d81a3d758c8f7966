#ifndef PIPESCOPE_PREFETCH_H
#define PIPESCOPE_PREFETCH_H

// A hint to the CPU to start loading the cache line at `address` (for writing), so that a
// later access does not wait for memory. It never faults, whatever the address, and has
// no effect on what the program computes. The tap uses it where it knows, one event
// ahead, which slot of a table larger than the core's caches it will touch next (see
// StageIndex's retired stages). It sits beside the cycle counter for the same reason:
// a single CPU instruction that Swift has no spelling for.
static inline void pipescope_prefetch(const void *address) {
    __builtin_prefetch(address, 1, 3);
}

#endif
