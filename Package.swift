// swift-tools-version:6.1
import PackageDescription

// Targets and the direction of their imports (see ../shared/STYLE.md):
//   The library:  Pipescope ─▶ PipescopeProbe ─▶ PipescopeTap ─▶ PipescopeGraph
//                 Pipescope ─▶ PipescopeMetrics ─▶ PipescopeProbe, PipescopeModel (the metrics, #46)
//                                     ├─▶ PipescopeLocations ─▶ PipescopeGraph
//                                     └─▶ PipescopeRecording ─▶ PipescopeWire ─▶ PipescopeGraph
//   PipescopeWire is the codec only (protobuf, packing, framing); PipescopeRecording owns the
//     files: the recording format, its reader, its writer and output thread, the flight recorder.
//   PipescopeClient ─▶ PipescopeRecording, PipescopeWire, PipescopeModel (frames in, the model's
//     messages out; the handshake, reconnecting, recording and reading recordings; Prometheus'
//     query API for `pipescope top --prometheus`, over NIOHTTP1), so
//     pipescope (the CLI) never imports PipescopeWire or PipescopeRecording
//   PipescopeModel ─▶ PipescopeGraph ◀─ PipescopeViews ─▶ TerminalKit ◀─ CursesBackend ─▶ CNcurses
//   PipescopeApp (the loop: keys and messages in, frames and effects out) ─▶ PipescopeViews
//   PipescopeExport ─▶ PipescopeModel, PipescopeGraph, CZlib (a recording's messages in, a trace out)
//   PipescopeMetrics ─▶ PipescopeProbe, PipescopeModel, PipescopeGraph, CoreMetrics, Prometheus (program side:
//     the probe's flushed batches and graph in, swift-metrics out); nothing of the tap side imports it
//   PipescopeTesting ─▶ Pipescope, PipescopeProbe, PipescopeTap, PipescopeModel (a program's tests:
//     its own probe's batches, each block's share judged by the model's FindingCollector)
// PipescopeGraph (the domain: events, node info, the fold) imports nothing of ours; the
// protobuf types live in PipescopeWire and are used at the two edges only. PipescopeTap
// (what runs on the program's threads) imports neither NIO nor the codec.
// The tap side and the terminal side never import each other.

let package = Package(
    name: "Pipescope",
    products: [
        .library(name: "Pipescope", targets: ["Pipescope"]),
        // For a program's tests: `Pipescope.findings { }` and the XCTest and Swift Testing
        // assertions built on it.
        .library(name: "PipescopeTesting", targets: ["PipescopeTesting"]),
        // Linked into an XCTest target, wraps each of its tests in a findings block (a C
        // constructor registers PipescopeTestObserver; PIPESCOPE_TESTS=fail|report|off).
        .library(name: "PipescopeTestObserver", targets: ["CPipescopeTestObserver"]),
        .executable(name: "pipescope", targets: ["pipescope"]),
        .executable(name: "pipescope-example", targets: ["PipescopeExample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // No traits: swift-protobuf's two default traits (stream and field-mask APIs we do not
        // use) reach the compiler as -D flags in an order that changes between runs of
        // SwiftPM, so every other `swift build` or `swift run` recompiled SwiftProtobuf.
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0", traits: []),
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // MARK: - Protocol and shared meaning of events
        .target(name: "PipescopeGraph"),
        .target(
            name: "PipescopeWire",
            dependencies: ["PipescopeGraph", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // Recordings on disk: the format, the reader, the writer and its output thread, the
        // flight recorder and its segments. Every file Pipescope opens, writes or syncs.
        .target(name: "PipescopeRecording", dependencies: ["PipescopeWire", "PipescopeGraph"]),

        // MARK: - The library users link
        // Pipescope ─▶ PipescopeProbe ─▶ PipescopeTap, PipescopeLocations ─▶ PipescopeGraph
        .target(name: "CPipescopeClock"),
        .target(name: "CPipescopeLocations"),
        .target(name: "CPipescopeRuntime"),
        // Everything that runs on the program's threads: the _Introspection tap, the
        // registry and its ring, the per-thread frames, value capture, the gate, call
        // stacks. No NIO and no codec: it records, it never sends.
        .target(
            name: "PipescopeTap",
            dependencies: [
                "PipescopeGraph", "CPipescopeClock", "CPipescopeLocations", "CPipescopeRuntime",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // Return addresses to source locations: ELF, DWARF line tables, the symbolizer and
        // its thread. Runs on Pipescope's own threads only.
        .target(name: "PipescopeLocations", dependencies: ["PipescopeGraph", "CPipescopeLocations"]),
        // The probe: drains the tap into batches, locates them, and serves them (NIO,
        // admission, connections, the hub, commands).
        .target(
            name: "PipescopeProbe",
            dependencies: [
                "PipescopeTap", "PipescopeLocations", "PipescopeWire", "PipescopeRecording", "PipescopeGraph",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The public face: start(), options, CancellableBag, contracts; starts the metrics.
        .target(
            name: "Pipescope",
            dependencies: [
                "PipescopeProbe", "PipescopeTap", "PipescopeGraph", "PipescopeWire", "PipescopeRecording",
                "PipescopeMetrics", .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),

        // Pipeline health as swift-metrics (#46): gauges from the probe's graph about once a
        // second, counters and the stage-time histogram from each flushed batch, on the
        // probe's flush thread (never the program's); served by a registry of its own.
        .target(
            name: "PipescopeMetrics",
            dependencies: [
                "PipescopeProbe", "PipescopeModel", "PipescopeGraph",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),

        // MARK: - The inspector
        .target(
            name: "PipescopeClient",
            dependencies: [
                "PipescopeWire", "PipescopeRecording", "PipescopeModel", "PipescopeGraph",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                // Prometheus' query API, for `pipescope top --prometheus` (PrometheusClient).
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .target(
            name: "PipescopeModel",
            dependencies: [
                "PipescopeGraph",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        // The system zlib (libz, zlib1g-dev): Perfetto's compressed packets.
        .systemLibrary(name: "CZlib"),
        .target(name: "PipescopeExport", dependencies: ["PipescopeModel", "PipescopeGraph", "CZlib"]),
        .target(name: "TerminalKit"),
        .target(name: "PipescopeViews", dependencies: ["PipescopeModel", "PipescopeGraph", "TerminalKit"]),
        .target(name: "PipescopeApp", dependencies: [
            "PipescopeModel", "PipescopeGraph", "PipescopeViews", "TerminalKit", "CPipescopeMemory",
        ]),
        // malloc_trim, for the inspector's loop (see InspectorApp.releaseMillis).
        .target(name: "CPipescopeMemory"),
        // No `pkgConfig:`: SwiftPM refuses the -D flags pkg-config gives for ncursesw and
        // warns about them on every build. The modulemap links ncursesw, the headers are on
        // the system include path, and shim.h defines what the flags did and says what to
        // install when the headers are missing.
        .systemLibrary(name: "CNcurses"),
        .target(name: "CursesBackend", dependencies: ["TerminalKit", "CNcurses"]),
        .target(
            name: "PipescopeDemo",
            dependencies: [
                "Pipescope",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
                .product(name: "OpenCombineFoundation", package: "OpenCombine"),
            ]
        ),
        .executableTarget(
            name: "pipescope",
            dependencies: [
                "Pipescope", "PipescopeDemo", "PipescopeClient", "PipescopeModel", "PipescopeGraph",
                "PipescopeApp", "CursesBackend", "PipescopeExport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // A separate program that links Pipescope the way a user's program does.
        .executableTarget(
            name: "PipescopeExample",
            dependencies: [
                "Pipescope",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),

        // A program's tests: the tap on for a block, its pipelines' findings (the model's
        // lints, judged by PipescopeModel's FindingCollector), attributed by task.
        .target(name: "PipescopeTesting", dependencies: [
            "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeModel", "PipescopeGraph",
        ]),
        // Its constructor registers PipescopeTesting's whole-suite XCTest observer.
        .target(name: "CPipescopeTestObserver", dependencies: ["PipescopeTesting"]),

        // MARK: - Tests
        .target(
            name: "PipescopeTestSupport",
            dependencies: [
                "PipescopeGraph", "PipescopeWire", "PipescopeRecording", "PipescopeModel", "TerminalKit",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Tests/PipescopeTestSupport"
        ),
        // Writes the benchmarks' recordings (Benchmarks/replay-history.sh, export-sizes.sh):
        // a data generator, so a program and not a test the suite would skip.
        .executableTarget(name: "bench-recording", dependencies: ["PipescopeTestSupport"], path: "Tests/BenchRecording"),
        // The architecture's arrows and homes, read from Sources/ itself: depends on nothing.
        .testTarget(name: "PipescopeArchitectureTests"),
        .testTarget(name: "PipescopeGraphTests", dependencies: ["PipescopeGraph", "PipescopeTestSupport"]),
        .testTarget(name: "PipescopeWireTests", dependencies: ["PipescopeWire", "PipescopeGraph", "PipescopeTestSupport"]),
        .testTarget(name: "PipescopeRecordingTests", dependencies: [
            "PipescopeRecording", "PipescopeWire", "PipescopeGraph", "PipescopeTestSupport",
        ]),
        // Real OpenCombine pipelines under a real tap and probe, for the test targets that
        // check what the tap records and what the model makes of it.
        .target(
            name: "PipescopeLiveTestSupport",
            dependencies: [
                "PipescopeProbe", "PipescopeModel", "PipescopeGraph", "PipescopeTestSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Tests/PipescopeLiveTestSupport"
        ),
        // One test target beside each library target; each test is in the target of the code
        // it tests. The tap's and the locations' are read through an in-process probe, which
        // drains the tap as a program's probe does.
        .testTarget(name: "PipescopeTapTests", dependencies: [
            "Pipescope", "PipescopeTap", "PipescopeLocations", "PipescopeProbe", "PipescopeGraph", "PipescopeWire",
            "PipescopeClient", "PipescopeTestSupport", "PipescopeLiveTestSupport",
            .product(name: "OpenCombine", package: "OpenCombine"),
            .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            .product(name: "OpenCombineFoundation", package: "OpenCombine"),
        ]),
        .testTarget(name: "PipescopeLocationsTests", dependencies: [
            "Pipescope", "PipescopeLocations", "CPipescopeLocations", "PipescopeTap", "PipescopeProbe", "PipescopeGraph",
            "PipescopeModel", "PipescopeViews", "TerminalKit", "PipescopeTestSupport",
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        .testTarget(name: "PipescopeProbeTests", dependencies: [
            "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations", "PipescopeGraph", "PipescopeWire",
            "PipescopeClient", "PipescopeModel", "PipescopeTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        .testTarget(name: "PipescopeClientTests", dependencies: [
            "PipescopeClient", "PipescopeRecording", "PipescopeWire", "PipescopeModel", "PipescopeGraph",
            "Pipescope", "PipescopeProbe", "PipescopeTestSupport",
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        // The public face: start(), CancellableBag, contracts, names.
        .testTarget(name: "PipescopeTests", dependencies: [
            "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations", "PipescopeGraph", "PipescopeWire",
            "PipescopeModel", "PipescopeLiveTestSupport",
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        // The model's own tests, and its lints, waits and chains on real pipelines (LintTests,
        // WaitTests, ChainTests) through PipescopeLiveTestSupport.
        // PipescopeTesting used as a program's tests use it (Swift Testing, in parallel).
        .testTarget(name: "PipescopeTestingTests", dependencies: [
            "PipescopeTesting", "PipescopeModel", "PipescopeLiveTestSupport",
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        .testTarget(name: "PipescopeModelTests", dependencies: [
            "PipescopeModel", "PipescopeGraph", "PipescopeTestSupport", "PipescopeLiveTestSupport",
            "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations", "PipescopeClient",
            "PipescopeWire", "PipescopeRecording",
            .product(name: "OpenCombine", package: "OpenCombine"),
            .product(name: "OpenCombineDispatch", package: "OpenCombine"),
        ]),
        // The metrics on real pipelines under an in-process probe, read as Prometheus text.
        .testTarget(name: "PipescopeMetricsTests", dependencies: [
            "PipescopeMetrics", "PipescopeProbe", "PipescopeModel", "PipescopeGraph", "PipescopeLiveTestSupport",
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "OpenCombine", package: "OpenCombine"),
        ]),
        .testTarget(
            name: "PipescopeExportTests",
            dependencies: ["PipescopeExport", "PipescopeClient", "PipescopeModel", "PipescopeGraph", "PipescopeWire",
                           "PipescopeTestSupport",
                           // Real OpenCombine pipelines, tapped by a probe, make the recordings the
                           // Perfetto export is checked on (PerfettoTraceTests).
                           "PipescopeProbe",
                           .product(name: "OpenCombine", package: "OpenCombine"),
                           .product(name: "OpenCombineDispatch", package: "OpenCombine")]
        ),
        .testTarget(name: "TerminalKitTests", dependencies: ["TerminalKit", "PipescopeTestSupport"]),
        .testTarget(name: "CursesBackendTests", dependencies: ["CursesBackend", "CNcurses", "TerminalKit"]),
        .testTarget(name: "PipescopeAppTests", dependencies: [
            "PipescopeApp", "CPipescopeMemory", "PipescopeModel", "PipescopeGraph", "TerminalKit", "PipescopeTestSupport",
            // The prefix oracle reads recordings and renders the views itself.
            "PipescopeClient", "PipescopeViews",
        ]),
        .testTarget(name: "PipescopeViewsTests", dependencies: ["PipescopeViews", "PipescopeModel", "PipescopeGraph", "TerminalKit", "PipescopeTestSupport"],
                    exclude: ["Golden"]),  // read by path (#filePath), so re-recording writes the real files
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["pipescope", "PipescopeExample", "PipescopeTestSupport", "PipescopeWire"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
