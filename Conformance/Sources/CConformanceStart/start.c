// Enables the hook that CONFORMANCE_HOOK names before main, and so before XCTest runs
// any test: OpenCombine's hook sees only subscriptions made after it is enabled.
#include "CConformanceStart.h"

// Defined in Swift, in ConformanceHook (`@_cdecl`).
extern void conformance_start_hook(void);

__attribute__((constructor))
static void conformance_start(void) {
    conformance_start_hook();
}
