// swift-tools-version:6.1
// The test suites of three real projects that use OpenCombine, run under Pipescope's tap:
//   Tokamak 0.11.1            TokamakTests, TokamakReconcilerTests, TokamakStaticHTMLTests,
//                             TokamakLayoutTests (over TokamakCore, TokamakTestRenderer,
//                             TokamakStaticHTML)
//   Fluxor 5.0.1              FluxorTests, AnyCodableTests (over Fluxor, FluxorTestSupport,
//                             AnyCodable)
//   combine-schedulers 1.2.2  CombineSchedulersTests (over its library, a path dependency)
// Their unchanged sources are checked out by run.sh into Checkouts/ (never committed). One
// package, so Pipescope and its dependencies are built once for all three.
//
// Tokamak's and Fluxor's targets are declared here again, as their own Package.swift
// declares them on Linux (names, dependencies, excludes, Swift 5 mode): Tokamak's manifest
// names JavaScriptKit, OpenCombineJS and swift-benchmark, which no target below needs on
// Linux and the package mirror does not all have; Fluxor's exports no product for
// AnyCodable, whose tests run too. Left out of Tokamak: TokamakDOM (WebAssembly only),
// TokamakGTK (GTK 3), the demos and benchmarks (no tests). combine-schedulers' manifest
// resolves as it is, so its library is a path dependency and only its tests are declared.
//
// Each test target links CSuiteStart: a C constructor that, before XCTest's main runs any
// test, enables the hook SUITE_HOOK names (Sources/SuiteHook):
//   SUITE_HOOK=pipescope (default)  Pipescope.start()  (PIPESCOPE_RECORD=FILE records it)
//   SUITE_HOOK=empty                OpenCombine's empty `_Introspection` only
//   SUITE_HOOK=none                 no hook at all
//   SUITE_HOOK=tests                none of its own: PipescopeTestObserver (the product each
//                                   test target links, PIPESCOPE_TESTS=report) wraps each test
// Pipescope comes from the checkout that holds this folder (..), or from PIPESCOPE_PATH.
import PackageDescription

let pipescopePath = Context.environment["PIPESCOPE_PATH"].flatMap { $0.isEmpty ? nil : $0 } ?? ".."

/// A path dependency's identity is the name of its directory, which differs between
/// checkouts, so it is read from the path itself.
func identity(ofPath path: String) -> String {
    let absolute = path.hasPrefix("/") ? path : "\(Context.packageDirectory)/\(path)"
    var parts: [Substring] = []
    for part in absolute.split(separator: "/") where part != "." {
        if part == ".." { _ = parts.popLast() } else { parts.append(part) }
    }
    return parts.last.map { $0.lowercased() } ?? ""
}

let tokamak = "Checkouts/Tokamak-0.11.1"
let fluxor = "Checkouts/Fluxor-5.0.1"
let combineSchedulers = "Checkouts/combine-schedulers-1.2.2"
let pipescopePackage = identity(ofPath: pipescopePath)
// Every test target: the hook SUITE_HOOK names, and PipescopeTesting's whole-suite observer
// (PIPESCOPE_TESTS=report wraps each test in a findings block; run.sh sets off otherwise).
let start: Target.Dependency = "CSuiteStart"
let observer: Target.Dependency = .product(name: "PipescopeTestObserver", package: pipescopePackage)
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]

let package = Package(
    name: "RealSuites",
    dependencies: [
        .package(path: pipescopePath),
        .package(path: combineSchedulers),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
        .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.0.0"),
    ],
    targets: [
        // MARK: The hook
        .target(
            name: "SuiteHook",
            dependencies: [
                .product(name: "Pipescope", package: pipescopePackage),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: swift5  // the C globals (stderr), as in Conformance
        ),
        .target(name: "CSuiteStart", dependencies: ["SuiteHook"]),

        // MARK: Tokamak 0.11.1
        .target(name: "TokamakCore", dependencies: [.product(name: "OpenCombineShim", package: "OpenCombine")],
                path: "\(tokamak)/Sources/TokamakCore", swiftSettings: swift5),
        .target(name: "TokamakStaticHTML", dependencies: ["TokamakCore"],
                path: "\(tokamak)/Sources/TokamakStaticHTML", swiftSettings: swift5),
        .target(name: "TokamakTestRenderer", dependencies: ["TokamakCore"],
                path: "\(tokamak)/Sources/TokamakTestRenderer", swiftSettings: swift5),
        .testTarget(name: "TokamakLayoutTests", dependencies: ["TokamakCore", "TokamakStaticHTML", start, observer],
                    path: "\(tokamak)/Tests/TokamakLayoutTests", swiftSettings: swift5),
        .testTarget(name: "TokamakReconcilerTests", dependencies: ["TokamakCore", "TokamakTestRenderer", start, observer],
                    path: "\(tokamak)/Tests/TokamakReconcilerTests", swiftSettings: swift5),
        .testTarget(name: "TokamakTests", dependencies: ["TokamakTestRenderer", start, observer],
                    path: "\(tokamak)/Tests/TokamakTests", swiftSettings: swift5),
        .testTarget(name: "TokamakStaticHTMLTests", dependencies: ["TokamakStaticHTML", start, observer],
                    path: "\(tokamak)/Tests/TokamakStaticHTMLTests",
                    exclude: ["__Snapshots__", "RenderingTests/__Snapshots__"], swiftSettings: swift5),

        // MARK: Fluxor 5.0.1
        .target(name: "AnyCodable", path: "\(fluxor)/Sources/AnyCodable", swiftSettings: swift5),
        .testTarget(name: "AnyCodableTests", dependencies: ["AnyCodable", start, observer],
                    path: "\(fluxor)/Tests/AnyCodableTests", swiftSettings: swift5),
        .target(name: "Fluxor",
                dependencies: ["AnyCodable", .product(name: "OpenCombine", package: "OpenCombine"),
                               .product(name: "OpenCombineDispatch", package: "OpenCombine")],
                path: "\(fluxor)/Sources/Fluxor", swiftSettings: swift5),
        .target(name: "FluxorTestSupport", dependencies: ["Fluxor"],
                path: "\(fluxor)/Sources/FluxorTestSupport", swiftSettings: swift5),
        .testTarget(name: "FluxorTests", dependencies: ["Fluxor", "FluxorTestSupport", start, observer],
                    path: "\(fluxor)/Tests/FluxorTests", swiftSettings: swift5),

        // MARK: combine-schedulers 1.2.2 (its Package@swift-6.1.swift: Swift 6, these features)
        .testTarget(
            name: "CombineSchedulersTests",
            dependencies: [
                .product(name: "CombineSchedulers", package: identity(ofPath: combineSchedulers)),
                .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
                .product(name: "OpenCombineShim", package: "OpenCombine"),
                start,
                observer,
            ],
            path: "\(combineSchedulers)/Tests/CombineSchedulersTests",
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("ImmutableWeakCaptures"),
                .enableUpcomingFeature("InferIsolatedConformances"),
                .enableUpcomingFeature("InternalImportsByDefault"),
                .enableUpcomingFeature("MemberImportVisibility"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
