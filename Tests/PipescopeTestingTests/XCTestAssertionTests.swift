import Foundation
@preconcurrency import OpenCombine
import PipescopeTesting
import Synchronization
import Testing
import XCTest

/// `assertNoPipelineFindings` fails an XCTest test at the line to change, once per
/// finding. Checked on a test case whose failures are collected rather than reported.
@Suite struct XCTestAssertionTests {
    final class Collecting: XCTestCase, @unchecked Sendable {
        let failures = Mutex<[(String, String, Int)]>([])

        override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                    expected: Bool) {
            failures.withLock { $0.append((description, filePath, lineNumber)) }
        }
    }

    @Test func aFindingFailsTheTestAtItsLine() {
        let test = Collecting(name: "collecting", testClosure: { _ in })
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 2
        test.assertNoPipelineFindings {
            _ = subject.sink { _ in }
        }
        let failures = test.failures.withLock { $0 }
        #expect(failures.count == 1)
        #expect(failures.first?.1 == #filePath)
        #expect(failures.first?.2 == line)
        #expect(failures.first?.0.hasPrefix("unretained-cancellable: cancelled as soon as it was made") == true)
    }

    @Test func aCleanBlockPasses() async {
        let test = Collecting(name: "collecting", testClosure: { _ in })
        let subject = PassthroughSubject<Int, Never>()
        await test.assertNoPipelineFindings {
            let kept = subject.sink { _ in }
            subject.send(1)
            await Task.yield()
            kept.cancel()
        }
        #expect(test.failures.withLock { $0.isEmpty })
    }
}
