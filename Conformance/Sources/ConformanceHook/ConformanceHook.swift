#if canImport(Glibc)
import Glibc
#endif
import OpenCombine
import Pipescope

/// OpenCombine's own empty hook: every callback has a default that does nothing, so
/// enabling it changes only what enabling any hook changes (subscribers are wrapped in
/// `SubscriberTap`). This is the baseline Pipescope is compared against.
final class EmptyIntrospection: _Introspection {}

private let emptyHook = EmptyIntrospection()

/// Called from a C constructor before `main`. Reads CONFORMANCE_HOOK:
/// - `pipescope`: `Pipescope.start()`;
/// - `empty`: enables ``EmptyIntrospection``;
/// - `none`: enables nothing.
///
/// It prints one line saying what is on, which `run.sh` requires from every run, and
/// stops the process if the variable is missing or unknown, or the hook did not start:
/// a run that silently compares the wrong configurations would be worthless.
@_cdecl("conformance_start_hook")
public func conformanceStartHook() {
    let name = getenv("CONFORMANCE_HOOK").map { String(cString: $0) } ?? ""
    switch name {
    case "pipescope":
        guard Pipescope.start() != nil else {
            fail("Pipescope.start() did not start (see the line above); nothing to compare")
        }
    case "empty":
        emptyHook.enable()
        guard emptyHook.isEnabled else { fail("the empty hook did not enable") }
    case "none":
        break
    default:
        fail("CONFORMANCE_HOOK is \"\(name)\"; expected pipescope, empty or none")
    }
    fputs("conformance: hook \(name) enabled\n", stderr)
}

private func fail(_ message: String) -> Never {
    fputs("conformance: \(message)\n", stderr)
    exit(70)
}
