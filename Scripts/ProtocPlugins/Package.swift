// swift-tools-version:6.1
//
// Builds the two protoc plugins that Scripts/generate-protos.sh runs, pinned to the runtime versions Cairn links
// (the generator must not be newer than the runtime). Not part of the Cairn build.
import PackageDescription

let package = Package(
    name: "ProtocPlugins",
    dependencies: [
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
    ],
    targets: []
)
