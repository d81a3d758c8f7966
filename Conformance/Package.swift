// swift-tools-version:6.0
// OpenCombine 0.14.0's own test suite, compiled unchanged, with a hook started before
// any test runs: Pipescope's tap or OpenCombine's empty `_Introspection`, chosen by
// CONFORMANCE_HOOK at run time. `run.sh` fetches the suite, copies it into
// Suite/OpenCombineTests (never committed), builds, runs both configurations and compares.
//
// The test target reproduces OpenCombine's own (its Package.swift at 0.14.0): the same
// name, the same three libraries, the same flags, Swift 5 language mode.
import PackageDescription

/// A path dependency's identity is the name of its directory, which differs between
/// clones (the checkout's folder name), so it is read from where this package sits.
let pipescopePackage = String(Context.packageDirectory.split(separator: "/").dropLast().last ?? "")

let package = Package(
    name: "Conformance",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine", exact: "0.14.0"),
    ],
    targets: [
        // `conformance_start_hook`: reads CONFORMANCE_HOOK and enables the chosen hook.
        .target(
            name: "ConformanceHook",
            dependencies: [
                .product(name: "Pipescope", package: pipescopePackage),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
        // A constructor that calls it before XCTest's main runs any test.
        .target(name: "CConformanceStart", dependencies: ["ConformanceHook"]),

        .testTarget(
            name: "OpenCombineTests",
            dependencies: [
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine",
                         condition: .when(platforms: [.linux, .macOS, .windows, .android])),
                .product(name: "OpenCombineFoundation", package: "OpenCombine",
                         condition: .when(platforms: [.linux, .macOS, .windows, .android])),
                "CConformanceStart",
            ],
            path: "Suite/OpenCombineTests",
            // Does not compile against this toolchain's Foundation on Linux.
            exclude: ["FoundationTests/NotificationCenterTests.swift"],
            swiftSettings: [
                .unsafeFlags(["-enable-testing"]),
                .define("WASI", .when(platforms: [.wasi])),
            ]
        ),
    ],
    swiftLanguageModes: [.v5]
)
