import CPipescopeLocations
import Foundation
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import XCTest

/// Addresses to source lines, and whose code a frame is: against this test binary's
/// own symbols and line tables (Swift units are DWARF 4 here, C units DWARF 5).
final class SymbolizerTests: XCTestCase {
    func testASwiftReturnAddressIsTheLineOfItsCall() {
        var addresses: [UInt] = []
        let line = #line; CallStack.withAddresses(enabled: true, frames: ThreadFrames.current) { addresses = Array($0) }
        let symbols = Symbolizer.shared.symbolize(addresses)
        let frame = addresses.lazy.compactMap { symbols[$0]?.last }.first { $0.file == #filePath }
        XCTAssertEqual(frame?.line, line)
        XCTAssertEqual(frame?.name, "SymbolizerTests.testASwiftReturnAddressIsTheLineOfItsCall()")
        XCTAssertEqual(frame.map(FrameOrigin.init), .program)
        XCTAssertEqual(frame?.image, "PipescopePackageTests.xctest")
    }

    func testACFunctionIsFoundInItsDwarf5LineTable() throws {
        let function: @convention(c) (UnsafeMutablePointer<UInt>?, UnsafeMutablePointer<UInt>?) -> Int32 = pipescope_thread_stack
        // An address a few bytes into the function, as if returned to.
        let address = UInt(bitPattern: unsafeBitCast(function, to: Int.self)) + 8
        let frame = try XCTUnwrap(Symbolizer.shared.symbolize([address])[address]?.last)
        XCTAssertEqual(frame.name, "pipescope_thread_stack")
        XCTAssertTrue(frame.file?.hasSuffix("/Sources/CPipescopeLocations/Stack.c") == true, "\(frame)")
        let source = try String(contentsOfFile: try XCTUnwrap(frame.file), encoding: .utf8).components(separatedBy: "\n")
        let start = try XCTUnwrap(source.firstIndex { $0.hasPrefix("int pipescope_thread_stack(") }) + 1
        XCTAssertTrue((start...start + 12).contains(frame.line ?? 0), "line \(frame.line ?? 0), function at \(start)")
        XCTAssertEqual(FrameOrigin(frame), .pipescope, "Pipescope's C is Pipescope's")
    }

    func testAnAddressNoBinaryHoldsHasNoFrames() {
        XCTAssertEqual(Symbolizer.shared.symbolize([8])[8], [])
    }

    func testTheModuleOfAMangledName() {
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$s11OpenCombine9PublisherPAAE4sink17receiveCompletion12receiveValueAA14AnyCancellableCyAA11SubscribersO0F0Oy_7FailureQzGc_y6OutputQzctF"),
                       "OpenCombine")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$s11OpenCombine9PublisherP5MyAppE6helperyyF"), "MyApp",
                       "a program's own extension of Publisher is the program's")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$s11OpenCombine10PublishersO3MapV5MyAppE4funcyyF"), "MyApp")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$s9Pipescope3TapC11willReceive9publisher10subscriberyx_q_t7Upstream"), "Pipescope")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$sSa5MyAppE3fooyyF"), "MyApp")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$sSa6appendyyxnF"), "Swift")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$ss5print_9separator10terminatoryypd_S2StF"), "Swift")
        XCTAssertEqual(FrameOrigin.module(ofMangled: "$sSo8NSObjectC"), "__C")
        XCTAssertNil(FrameOrigin.module(ofMangled: "main"))
        XCTAssertNil(FrameOrigin.module(ofMangled: "$s"))
    }

    func testWhoseCodeAFrameIs() {
        func frame(_ raw: String?, file: String? = nil, line: Int? = nil, image: String = "/app/MyApp",
                   thunk: Bool = false) -> FrameOrigin {
            FrameOrigin(SymbolFrame(rawName: raw, name: nil, file: file, line: line, imagePath: image, image: nil,
                                    offset: 0, isThunk: thunk))
        }
        XCTAssertEqual(frame("$s5MyApp4FeedC5startyyF", file: "/src/MyApp/Feed.swift", line: 9), .program)
        XCTAssertEqual(frame("$s5MyApp4FeedC5startyyF"), .program, "no debug information: by module")
        XCTAssertEqual(frame("$s11OpenCombine9PublisherPAAE4sinkyyF"), .openCombine)
        XCTAssertEqual(frame("$s5MyApp4FeedC5startyyF", file: "/co/OpenCombine/Sources/OpenCombine/Sink.swift", line: 3),
                       .openCombine, "OpenCombine's code specialized or inlined into the program")
        XCTAssertEqual(frame("$s11OpenCombine9PublisherP5MyAppE6helperyyF", file: "/src/MyApp/Ext.swift", line: 4), .program)
        XCTAssertEqual(frame("$s9Pipescope3TapC1fyyF"), .pipescope)
        XCTAssertEqual(frame("$s5MyApp4FeedC5startyyF", file: "/src/MyApp/Feed.swift"), .thunk, "line 0: compiler-made")
        XCTAssertEqual(frame("$sxIegn_xytIegnr_lTR", thunk: true), .thunk)
        XCTAssertEqual(frame("$ss5printyyF"), .system)
        XCTAssertEqual(frame("dispatch_sync", image: "/usr/lib/swift/linux/libdispatch.so"), .system)
        XCTAssertEqual(frame("$s5MyApp1fyyF", image: "/lib/x86_64-linux-gnu/libc.so.6"), .system)
        XCTAssertEqual(frame(nil), .unknown)
        XCTAssertEqual(frame("__libc_start_main"), .system)
        XCTAssertEqual(frame("main", file: "/src/MyApp/main.swift", line: 3), .program)
        XCTAssertEqual(frame("$s14ArgumentParser15ParsableCommandPAAE4mainyyFZ",
                             file: "/src/MyApp/.build/checkouts/swift-argument-parser/Sources/ArgumentParser/Parsable Types/ParsableCommand.swift",
                             line: 151), .dependency, "another package's sources, from SwiftPM's checkout")
        XCTAssertEqual(frame("$s3TCA5StoreC4sendyyF", file: "/Users/me/Library/Developer/Xcode/DerivedData/App-x/SourcePackages/checkouts/tca/Sources/TCA/Store.swift",
                             line: 20), .dependency, "and from Xcode's")
        XCTAssertEqual(frame("$s9Pipescope3TapC1fyyF", file: FrameOrigin.pipescopeSources[0] + "Tap.swift", line: 2), .pipescope,
                       "Pipescope's own sources are Pipescope's, wherever they were checked out")
    }
}
