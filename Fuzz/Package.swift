// swift-tools-version:6.1
// libFuzzer harnesses for the wire protocol's decoding: frames, client and server
// messages, and recordings (FuzzWire), and the recording reader (FuzzRecording). A package of its own, so the fuzzer's flags never reach
// the normal build; it compiles the real PipescopeWire, PipescopeRecording and PipescopeGraph
// sources (symlinks).
//
//   Fuzz/run.sh 30          # build, then fuzz each harness for 30 seconds
import PackageDescription

let package = Package(
    name: "PipescopeFuzz",
    dependencies: [.package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0", traits: [])],  // see ../Package.swift
    targets: [
        .target(name: "PipescopeGraph"),
        .target(
            name: "PipescopeWire",
            dependencies: ["PipescopeGraph", .product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        .target(name: "PipescopeRecording", dependencies: ["PipescopeWire", "PipescopeGraph"]),
        .executableTarget(name: "FuzzWire", dependencies: ["PipescopeWire", "PipescopeRecording"]),
        // The recording reader, as replay and export read a file (chunks, end marks, cuts).
        .executableTarget(name: "FuzzRecording", dependencies: ["PipescopeWire", "PipescopeRecording"]),
    ],
    swiftLanguageModes: [.v6]
)
