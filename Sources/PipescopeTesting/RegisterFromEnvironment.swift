#if canImport(XCTest)
import Foundation

/// Called by the `PipescopeTestObserver` product's C constructor, before XCTest's main:
/// registers a ``PipescopeTestObserver`` as `PIPESCOPE_TESTS` says.
///
/// - `fail` (or unset): each finding fails the test it was made in.
/// - `report`: each finding is printed (``PipescopeTestObserver/printReport(_:)``), and
///   the tests' results are XCTest's alone.
/// - `off`: no observer, no tap.
///
/// ```sh
/// PIPESCOPE_TESTS=report swift test
/// ```
@_cdecl("pipescope_register_test_observer")
func registerTestObserverFromEnvironment() {
    let mode = ProcessInfo.processInfo.environment["PIPESCOPE_TESTS"] ?? "fail"
    switch mode {
    case "fail", "":
        PipescopeTestObserver.register(failsTests: true)
    case "report":
        PipescopeTestObserver.register(failsTests: false)
    case "off":
        break
    default:
        // Said, not guessed: a misspelt mode would otherwise pass every test silently.
        let text = "pipescope: PIPESCOPE_TESTS is \"\(mode)\"; expected fail, report or off. "
            + "Each test's findings fail it (fail).\n"
        FileHandle.standardError.write(Data(text.utf8))
        PipescopeTestObserver.register(failsTests: true)
    }
}
#endif
