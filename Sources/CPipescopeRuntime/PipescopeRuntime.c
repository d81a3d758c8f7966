// The declarations in include/PipescopeRuntime.h are the Swift runtime's own functions:
// this target defines nothing (SwiftPM builds a C target from at least one source).
#include "PipescopeRuntime.h"
