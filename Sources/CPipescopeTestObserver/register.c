// The PipescopeTestObserver product: linking it into a test target wraps every XCTest test
// of that target in a findings block, with no test file edited. A C constructor, because
// Swift has none and SwiftPM's generated test main (`XCTMain(__allDiscoveredTests())`)
// takes no observer: it runs when the test binary (Linux) or bundle (macOS) is loaded,
// before XCTest's main starts the first test.
#include "CPipescopeTestObserver.h"

extern void pipescope_register_test_observer(void);

__attribute__((constructor))
static void pipescope_test_observer_start(void) {
    pipescope_register_test_observer();
}
