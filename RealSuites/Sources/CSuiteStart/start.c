// Enables the hook SUITE_HOOK names before main, so before XCTest runs any test.
#include "CSuiteStart.h"

extern void suite_start_hook(void);

__attribute__((constructor))
static void suite_start(void) {
    suite_start_hook();
}
