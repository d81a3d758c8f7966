// Nothing to import: the target exists for the constructor in register.c, which registers
// PipescopeTesting's PipescopeTestObserver before XCTest runs any test.
