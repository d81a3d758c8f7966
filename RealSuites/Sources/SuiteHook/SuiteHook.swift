#if canImport(Glibc)
import Glibc
#endif
import OpenCombine
import Pipescope

/// OpenCombine's own empty hook (every callback defaults to nothing): the baseline that
/// changes only what enabling any hook changes.
final class EmptyIntrospection: _Introspection {}

nonisolated(unsafe) private let emptyHook = EmptyIntrospection()

/// Called from a C constructor before `main`, so before XCTest runs any test: OpenCombine's
/// hook sees only subscriptions made after it is enabled.
/// SUITE_HOOK: pipescope (default), empty, none, or tests: no hook of its own, each test
/// wrapped by PipescopeTestObserver (which the PipescopeTestObserver product's constructor
/// registers when PIPESCOPE_TESTS is report).
@_cdecl("suite_start_hook")
public func suiteStartHook() {
    let name = getenv("SUITE_HOOK").map { String(cString: $0) } ?? "pipescope"
    switch name {
    case "pipescope":
        guard Pipescope.start() != nil else { fail("Pipescope.start() did not start") }
    case "empty":
        emptyHook.enable()
        guard emptyHook.isEnabled else { fail("the empty hook did not enable") }
    case "none":
        break
    case "tests":
        let mode = getenv("PIPESCOPE_TESTS").map { String(cString: $0) }
        guard mode == "report" else { fail("SUITE_HOOK=tests needs PIPESCOPE_TESTS=report (is \(mode ?? "unset"))") }
    default:
        fail("SUITE_HOOK is \"\(name)\"; expected pipescope, empty, none or tests")
    }
    fputs("realsuites: hook \(name) enabled\n", stderr)
}

private func fail(_ message: String) -> Never {
    fputs("realsuites: \(message)\n", stderr)
    exit(70)
}
