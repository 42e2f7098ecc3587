#!/usr/bin/env bash
# Regenerates Sources/CairnGRPC/Generated/*.swift from Cairn's own .proto files in Sources/CairnGRPC/Protos.
#
#   Scripts/generate-protos.sh           regenerate (the output is committed; nothing generates at build time)
#   Scripts/generate-protos.sh --check   regenerate into a temporary folder and fail if it differs from the commit
#
# Tools: Debian's protoc (`apt-get install -y protobuf-compiler libprotobuf-dev`; libprotobuf-dev provides the
# well-known types under /usr/include/google/protobuf), plus protoc-gen-swift (swift-protobuf 1.39.0) and
# protoc-gen-grpc-swift-2 (grpc-swift-protobuf 2.4.1), built here from Scripts/ProtocPlugins in release mode.
set -euo pipefail
cd "$(dirname "$0")/.."

module=Sources/CairnGRPC
protos=$module/Protos
out=$module/Generated
scratch=${PROTOC_PLUGINS_SCRATCH:-.build-protoc-plugins}

if ! command -v protoc >/dev/null || [ ! -f /usr/include/google/protobuf/timestamp.proto ]; then
    echo "protoc or the well-known .proto files are missing; run: apt-get install -y protobuf-compiler libprotobuf-dev" >&2
    exit 1
fi

echo "building protoc-gen-swift and protoc-gen-grpc-swift-2 (release)"
(cd Scripts/ProtocPlugins &&
    swift build -c release --scratch-path "../../$scratch" --product protoc-gen-swift >/dev/null &&
    swift build -c release --scratch-path "../../$scratch" --product protoc-gen-grpc-swift-2 >/dev/null)
bin=$(cd Scripts/ProtocPlugins && swift build -c release --scratch-path "../../$scratch" --show-bin-path)

target=$out
if [ "${1:-}" = "--check" ]; then
    target=$(mktemp -d)
    trap 'rm -rf "$target"' EXIT
fi

# Generated types are `package`: the adapter and the tests in this package use them; apps see only CairnGRPC's API.
mapfile -t files < <(cd "$protos" && find . -name '*.proto' | sed 's|^\./||' | sort)
rm -f "$target"/*.swift
protoc -I "$protos" -I /usr/include \
    --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
    --swift_opt=Visibility=Package --swift_opt=FileNaming=DropPath \
    --swift_out="$target" \
    "${files[@]/#/$protos/}"
# Only the file that declares `service Firestore` yields client code.
protoc -I "$protos" -I /usr/include \
    --plugin=protoc-gen-grpc-swift-2="$bin/protoc-gen-grpc-swift-2" \
    --grpc-swift-2_opt=Visibility=Package --grpc-swift-2_opt=FileNaming=DropPath \
    --grpc-swift-2_opt=Client=true --grpc-swift-2_opt=Server=false \
    --grpc-swift-2_out="$target" \
    "$protos/google/firestore/v1/firestore.proto"

if [ "$target" != "$out" ]; then
    if diff -r "$out" "$target" >/dev/null; then
        echo "generated code is up to date"
    else
        diff -r "$out" "$target" | head -40 >&2
        echo "Sources/CairnGRPC/Generated differs from the .proto files; run Scripts/generate-protos.sh and commit" >&2
        exit 1
    fi
else
    echo "wrote $(ls "$out" | wc -l) files to $out"
fi
