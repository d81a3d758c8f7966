#ifndef PIPESCOPE_CLOCK_H
#define PIPESCOPE_CLOCK_H

#include <stdint.h>
#include <time.h>

/// The CPU's cycle counter where it has one that user code may read (x86's TSC, ARM's
/// virtual counter), else CLOCK_MONOTONIC in nanoseconds. A few cycles, against about
/// 25 ns for clock_gettime's vDSO: the tap stamps every event with it, and the flush
/// turns ticks into wall-clock nanoseconds (see Pipescope's TickClock).
static inline uint64_t pipescope_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t value;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/// Whether pipescope_ticks reads a CPU counter (1) or the monotonic clock (0).
int pipescope_ticks_are_cycles(void);

#endif
