import CPipescopeMemory
import Foundation
import XCTest

/// The loop's malloc_trim (InspectorApp.releaseNanos) really reaches glibc: a shim that
/// compiles its call away (its glibc check before any header defines __GLIBC__) returns
/// 0 and releases nothing, which only a benchmark's resident figure would show.
final class ReleaseFreeMemoryTests: XCTestCase {
    func testFreedSmallBlocksGoBackToTheSystem() throws {
        #if canImport(Glibc)
        // Under ThreadSanitizer (or AddressSanitizer) malloc is the sanitizer's, and
        // glibc's malloc_trim has nothing of its own to give back.
        let program = dlopen(nil, RTLD_NOW)
        for runtime in ["__tsan_init", "__asan_init"] where dlsym(program, runtime) != nil {
            throw XCTSkip("malloc is the sanitizer's here (\(runtime)), not glibc's")
        }
        // 32 MiB in blocks of 1 KiB (from malloc's heap, not mapped one by one), all freed
        // but the last, which keeps the heap's top from shrinking by itself.
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<32_768 {
            let block = try XCTUnwrap(malloc(1_024))
            memset(block, 1, 1_024)
            blocks.append(block)
        }
        for block in blocks.dropLast() { free(block) }
        XCTAssertEqual(pipescope_release_free_memory(), 1, "malloc_trim gave memory back")
        free(blocks.last)
        #else
        throw XCTSkip("glibc's malloc_trim only")
        #endif
    }
}
