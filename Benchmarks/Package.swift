// swift-tools-version:6.1
// Pipescope's benchmarks (ordo-one package-benchmark), in a package of their own so they
// never slow the test build. The Pipescope targets are compiled from the real sources
// through symlinks in Shared/ (a path dependency's identity would be the checkout's
// directory name).
//
//   cd Benchmarks && swift package benchmark
import PackageDescription

let package = Package(
    name: "PipescopeBenchmarks",
    dependencies: [
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0", traits: []),  // see ../Package.swift
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),  // see ../Package.swift
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        .target(name: "PipescopeGraph", path: "Shared/PipescopeGraph"),
        .target(name: "PipescopeWire", dependencies: ["PipescopeGraph", .product(name: "SwiftProtobuf", package: "swift-protobuf")],
                path: "Shared/PipescopeWire"),
        .target(name: "PipescopeRecording", dependencies: ["PipescopeWire", "PipescopeGraph"], path: "Shared/PipescopeRecording"),
        .target(name: "CPipescopeClock", path: "Shared/CPipescopeClock"),
        .target(name: "CPipescopeLocations", path: "Shared/CPipescopeLocations"),
        .target(name: "CPipescopeRuntime", path: "Shared/CPipescopeRuntime"),
        .target(
            name: "PipescopeTap",
            dependencies: [
                "PipescopeGraph", "CPipescopeClock", "CPipescopeLocations", "CPipescopeRuntime",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "DequeModule", package: "swift-collections"),
            ],
            path: "Shared/PipescopeTap"
        ),
        .target(name: "PipescopeLocations", dependencies: ["PipescopeGraph", "CPipescopeLocations"],
                path: "Shared/PipescopeLocations"),
        .target(
            name: "PipescopeProbe",
            dependencies: [
                "PipescopeTap", "PipescopeLocations", "PipescopeWire", "PipescopeRecording", "PipescopeGraph",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Shared/PipescopeProbe"
        ),
        .target(
            name: "PipescopeMetrics",
            dependencies: [
                "PipescopeProbe", "PipescopeModel", "PipescopeGraph",
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Shared/PipescopeMetrics"
        ),
        .target(
            name: "Pipescope",
            dependencies: [
                "PipescopeProbe", "PipescopeTap", "PipescopeGraph", "PipescopeWire", "PipescopeRecording",
                "PipescopeMetrics", .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            path: "Shared/Pipescope"
        ),
        .target(name: "PipescopeModel", dependencies: [
            "PipescopeGraph", .product(name: "DequeModule", package: "swift-collections"),
        ], path: "Shared/PipescopeModel"),
        .target(name: "PipescopeClient", dependencies: [
            "PipescopeWire", "PipescopeRecording", "PipescopeModel", "PipescopeGraph",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], path: "Shared/PipescopeClient"),
        .systemLibrary(name: "CZlib", path: "Shared/CZlib"),
        .target(name: "PipescopeExport", dependencies: ["PipescopeModel", "PipescopeGraph", "CZlib"],
                path: "Shared/PipescopeExport"),
        .target(name: "TerminalKit", path: "Shared/TerminalKit"),
        .target(name: "PipescopeViews", dependencies: ["PipescopeModel", "PipescopeGraph", "TerminalKit"],
                path: "Shared/PipescopeViews"),
        // malloc's bytes in use, for the inspector memory benchmark.
        .target(name: "CMallocInfo", path: "Profile/CMallocInfo"),
        .target(name: "CPipescopeMemory", path: "Shared/CPipescopeMemory"),
        // A plain loop over the tapped chain, for `perf record` and quick comparisons.
        .executableTarget(
            name: "TapProfile",
            dependencies: ["Pipescope", "PipescopeProbe", "PipescopeWire", "PipescopeGraph",
                           .product(name: "OpenCombine", package: "OpenCombine")],
            path: "Profile/TapProfile"
        ),
        .executableTarget(
            name: "PipescopeBenchmarks",
            dependencies: [
                "Pipescope", "PipescopeProbe", "PipescopeTap", "PipescopeLocations",
                "PipescopeWire", "PipescopeRecording", "PipescopeGraph", "PipescopeModel", "PipescopeViews", "TerminalKit",
                "PipescopeClient", "PipescopeExport", "CPipescopeLocations", "CMallocInfo", "CPipescopeMemory",
                "PipescopeMetrics", .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            path: "Benchmarks/PipescopeBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
