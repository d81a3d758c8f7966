#include "PipescopeClock.h"

int pipescope_ticks_are_cycles(void) {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}
