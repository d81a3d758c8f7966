#!/usr/bin/env bash
# Regenerates Sources/PipescopeWire/Generated/pipescope.pb.swift from Resources/pipescope.proto.
# Needs protoc (Debian: protobuf-compiler) and builds protoc-gen-swift 1.39.0 once (~1.5 min).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${PROTOGEN_DIR:-/tmp/pipescope-protogen}
mkdir -p "$work"
cat > "$work/Package.swift" <<'PKG'
// swift-tools-version:5.9
import PackageDescription
let package = Package(name: "protogen",
  dependencies: [.package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0")], targets: [])
PKG
(cd "$work" && swift build -c release --product protoc-gen-swift)
mkdir -p "$here/Sources/PipescopeWire/Generated"
protoc --plugin=protoc-gen-swift="$work/.build/release/protoc-gen-swift" \
  --swift_opt=Visibility=Public \
  -I "$here/Resources" --swift_out="$here/Sources/PipescopeWire/Generated" \
  "$here/Resources/pipescope.proto"
echo "generated Sources/PipescopeWire/Generated/pipescope.pb.swift"
