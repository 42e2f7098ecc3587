// swift-tools-version:6.1
//
// Cairn — an offline-first Cloud Firestore client whose durable cache is an append-only, LZ4-compressed,
// event-sourced segment log. See README.md for the architecture and DESIGN notes.
//
// Build-time requirements on Linux: liblz4-dev and, for cairn-bench, libleveldb-dev
// (`apt-get install -y liblz4-dev libleveldb-dev`). `make test` installs them.
import PackageDescription

let package = Package(
    name: "Cairn",
    products: [
        // The storage engine on its own, with its documented API (README: Using the engine).
        .library(name: "SegmentLog", targets: ["SegmentLog"]),
        // Firebase's APIs: Cloud Firestore (Cairn) and the Realtime Database (CairnDatabase).
        // CairnApp, CairnModel, CairnLocalStore, CairnCore, CairnGRPC, CairnDatabaseCore, CairnTestSupport: internals.
        .library(name: "Cairn", targets: ["Cairn"]),
        .library(name: "CairnDatabase", targets: ["CairnDatabase"]),
        .executable(name: "cairn", targets: ["cairn"]),
        .executable(name: "cairn-bench", targets: ["cairn-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Firestore v1 over gRPC (CairnGRPC). The generated code is committed (Scripts/generate-protos.sh);
        // no build plugin runs at build time.
        .package(url: "https://github.com/grpc/grpc-swift-2", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", from: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", from: "1.39.0"),
        // Insecure.MD5 for the bloom filters of existence filters, SHA-1 for the Realtime Database node hash.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // The Realtime Database's WebSocket client (CairnDatabase: NIOWebSocket, NIOHTTP1, NIOPosix; NIOSSL for wss://)
        // and the local server (CairnDatabaseServer: HTTP/1.1, WebSocket). Already in the graph through
        // grpc-swift-nio-transport; listed to use their products directly.
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // Logging (`Firestore.enableLogging`, `Database.setLoggingEnabled`, the local server's request log):
        // swift-log's `Logger`, already in the graph through grpc-swift-2 and swift-nio.
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // liblz4 from the system (Debian: liblz4-dev). Only the LZ4 block API is used.
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        // libleveldb from the system (Debian: libleveldb-dev), through its C API: only cairn-bench's LevelDB
        // baseline (the storage Firebase's Apple SDK caches in) uses it.
        .systemLibrary(
            name: "CLevelDB",
            path: "Sources/CLevelDB",
            pkgConfig: nil,
            providers: [.apt(["libleveldb-dev"])]
        ),
        // CRC32C (Castagnoli) with the SSE4.2 instruction when the CPU has it, a portable table otherwise.
        .target(
            name: "CCRC32C",
            cSettings: [.unsafeFlags(["-O3"])]
        ),
        // The storage engine: segments, frames, LZ4, CRC32C, group commit, recovery, compaction, accounting.
        .target(
            name: "SegmentLog",
            dependencies: ["CLZ4", "CCRC32C"]
        ),
        // The Firestore data model: values and their order, paths, documents, mutations, queries, codecs.
        .target(name: "CairnModel"),
        // The event-sourced cache over SegmentLog: events, views, outbox, targets, query engine (Docs/LocalStore.md).
        .target(name: "CairnLocalStore", dependencies: ["CairnLogging", "CairnModel", "SegmentLog"]),
        // Logging through swift-log for both products: a `cairn.*` logger per component and the debug switches of
        // `Firestore.enableLogging` and `Database.setLoggingEnabled`.
        .target(name: "CairnLogging", dependencies: [.product(name: "Logging", package: "swift-log")]),
        // FirebaseApp and FirebaseOptions: one configuration shared by both products (re-exported by each).
        .target(name: "CairnApp"),
        // The client core (Firebase's `core/` and `remote/`): FirestoreClient, View, QueryListener, EventManager,
        // SyncEngine, RemoteStore, WatchChangeAggregator, the Datastore protocol, AsyncQueue, bundles. Internals
        // are `package`; public are only the API types the core reports with (FirestoreErrorCode, ListenSource).
        .target(
            name: "CairnCore",
            dependencies: [
                "CairnApp", "CairnLogging", "CairnModel", "CairnLocalStore", "SegmentLog",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Firestore v1 over gRPC: own .proto files (Protos/), committed generated Swift (Generated/), the
        // CairnModel <-> proto serializer, the gRPC client (Listen/Write streams, Commit, BatchGet, RunQuery) and
        // the core's Datastore over it.
        .target(
            name: "CairnGRPC",
            dependencies: [
                "CairnCore",
                "CairnLogging",
                "CairnModel",
                "CairnLocalStore",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Protos", "README.md"]
        ),
        // The public API, mirroring Firebase's Apple SDK: it calls the core directly, and each Firestore instance
        // talks gRPC (CairnGRPC) unless its settings inject another datastore.
        .target(
            name: "Cairn",
            dependencies: [
                "CairnApp", "CairnCore", "CairnGRPC", "CairnLogging", "CairnModel", "CairnLocalStore", "SegmentLog",
                // RS256 (RSA PKCS#1 v1.5 + SHA-256) for the service-account credentials' signed JWT.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Shared by tests, the demo and the benchmarks, never shipped in a product: SimulatedFileSystem (the engine
        // on memory: crash images, fault injection), the crash-writer workload, a seeded generator, the
        // Firestore emulator launcher, a test section exclusive across suites, the process's log capture, and a
        // local OAuth2 token endpoint for service-account credentials.
        .target(
            name: "CairnTestSupport",
            dependencies: [
                "SegmentLog", .product(name: "Logging", package: "swift-log"),
                // The local OAuth token endpoint (HTTP/1.1 on loopback, RS256 verification).
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // The command-line tool: demo, inspect, dump, stats, verify, compact (a thin shell over library APIs).
        // CairnCore: the offline demo starts its instance without a network; CairnGRPC: the emulator demo
        // looks at the server with the raw gRPC client.
        .executableTarget(
            name: "cairn",
            dependencies: [
                "Cairn",
                "CairnCore",
                "CairnGRPC",
                "SegmentLog",
                "CairnModel",
                "CairnLocalStore",
                "CairnTestSupport",
                "CairnDatabase",
                "CairnDatabaseServer",
                "CairnDatabaseCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tools/cairn"
        ),
        // Benchmarks: SegmentLog versus SQLite (GRDB, WAL) and LevelDB in one process, interleaved; Firestore cache
        // queries against Android's and iOS's cache layouts; listener latency through Cairn; the Realtime Database
        // cache (CairnDatabase, CairnDatabaseCore).
        .executableTarget(
            name: "cairn-bench",
            dependencies: [
                "Cairn",
                "CairnDatabase",
                "CairnDatabaseCore",
                "CairnDatabaseServer",
                "CairnCore",
                "SegmentLog",
                "CairnModel",
                "CairnLocalStore",
                "CairnTestSupport",
                "CLevelDB",
                "CCRC32C",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/cairn-bench"
        ),
        .testTarget(
            name: "CairnModelTests",
            dependencies: ["CairnModel", "CairnTestSupport"]
        ),
        .testTarget(
            name: "CairnLocalStoreTests",
            dependencies: ["CairnLocalStore", "CairnModel", "SegmentLog", "CairnTestSupport"]
        ),
        // Scripted datastores for the tests that drive the real core (not a product).
        .target(
            name: "CairnCoreTestSupport",
            dependencies: ["CairnCore", "CairnModel", "CairnLocalStore"],
            path: "Tests/CairnCoreTestSupport"
        ),
        // The public API over the real core and a scripted datastore.
        .testTarget(
            name: "CairnAPITests",
            dependencies: ["Cairn", "CairnCore", "CairnModel", "CairnLocalStore", "CairnCoreTestSupport", "CairnTestSupport"]
        ),
        // The client core: View, QueryListener, SyncEngine, RemoteStore, WatchChangeAggregator, AsyncQueue, ...
        .testTarget(
            name: "CairnCoreTests",
            dependencies: ["CairnCore", "CairnModel", "CairnLocalStore", "CairnCoreTestSupport", "CairnTestSupport"]
        ),
        // Programs written against `import Cairn`, offline and with persistent caches; the emulator test needs
        // only `import Cairn` to sync.
        .testTarget(
            name: "CairnEndToEndTests",
            dependencies: [
                "Cairn", "CairnCore", "CairnModel", "CairnLocalStore", "SegmentLog", "CairnCoreTestSupport",
                "CairnTestSupport",
            ]
        ),
        // The Firestore spec tests: JSON scenarios from ../shared/firestore-spec (or $CAIRN_SPEC_DIR) drive the
        // core with a scripted Datastore.
        .testTarget(
            name: "FirestoreSpecTests",
            dependencies: ["CairnCore", "CairnModel", "CairnLocalStore", "SegmentLog", "CairnTestSupport"],
            exclude: ["README.md"]
        ),
        // Runs the cairn tool's commands on caches the tests build (golden outputs, exit codes, read-only checks).
        .testTarget(
            name: "CairnToolTests",
            dependencies: ["CairnLocalStore", "CairnModel", "SegmentLog", "CairnTestSupport", "CairnDatabaseCore"],
            // Golden outputs, read from the source tree by path (CAIRN_UPDATE_GOLDEN=1 rewrites them).
            exclude: ["Golden"]
        ),
        // The serializer's round trips, and the client against the official Firestore emulator (skipped with one
        // line when the emulator is not installed; a failure under CI=true). Runs the built `cairn` (restart in a
        // child process) and the Python peer in Interop/ (the official client, from the .venv-interop venv).
        .testTarget(
            name: "CairnGRPCTests",
            dependencies: [
                "CairnGRPC", "Cairn", "CairnCore", "CairnModel", "CairnTestSupport",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2", package: "grpc-swift-nio-transport"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["Interop"]
        ),
        .testTarget(
            name: "SegmentLogTests",
            dependencies: ["SegmentLog", "CairnTestSupport"]
        ),
        // Realtime Database: the client core (Model/: nodes, paths, key order, indexes, hash, query parameters;
        // SyncTree/: write tree, views, view processor, filters, event generation, sync points, the sync tree;
        // Repo/: the client; Persistence/: the cache on SegmentLog).
        .target(
            name: "CairnDatabaseCore",
            dependencies: ["CairnLogging", "SegmentLog", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // Realtime Database: the public API (Firebase's Swift names) over the core's Repo, and the v5 WebSocket
        // connection (Connection/) on swift-nio.
        .target(
            name: "CairnDatabase",
            dependencies: [
                "CairnApp",
                "CairnDatabaseCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "CairnDatabaseTests",
            dependencies: ["CairnDatabase", "CairnDatabaseCore", "CairnTestSupport"]
        ),
        // Two Database instances (two apps) through the local server on a loopback port: listeners across clients,
        // .info/connected across a server restart, onDisconnect, transactions from both; `cairn database-child`
        // processes (offline writes and a hard exit, presence killed with SIGKILL) and the Python Admin SDK.
        .testTarget(
            name: "CairnDatabaseEndToEndTests",
            dependencies: ["CairnDatabase", "CairnDatabaseCore", "CairnDatabaseServer", "CairnTestSupport"],
            exclude: ["Interop"]
        ),
        // The v5 persistent connection against a scripted transport: handshake, requests and answers, pushes,
        // restore order after a reconnect, backoff, keepalive, frames.
        .testTarget(
            name: "CairnDatabaseConnectionTests",
            dependencies: [
                "CairnDatabase", "CairnDatabaseCore",
                // A raw loopback server for the WebSocket client's own tests (the upgrade, frames, refusals).
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "CairnDatabaseCoreTests",
            dependencies: ["CairnDatabaseCore", "SegmentLog", "CairnTestSupport"]
        ),
        // The local Realtime Database server: a transport-free database core (namespaces, sessions speaking the
        // v5 protocol, listens, onDisconnect, server values), its transport (WebSocket at /.ws and the REST API
        // on one NIO HTTP/1.1 port) and optional storage on a SegmentLog. Used by `cairn database-emulator` and
        // the end-to-end tests; not a product.
        .target(
            name: "CairnDatabaseServer",
            dependencies: [
                "CairnDatabaseCore",
                "SegmentLog",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The server core at message level, the transport over loopback sockets, and interop with the official
        // Python Admin SDK (firebase-admin, from the .venv-interop venv; skipped with one line when missing).
        .testTarget(
            name: "CairnDatabaseServerTests",
            dependencies: [
                "CairnDatabaseServer", "CairnDatabaseCore", "CairnTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            exclude: ["Interop"]
        ),
        // Firebase's sync-point cases from ../shared/rtdb-spec (or $CAIRN_RTDB_SPEC_DIR) through the real sync tree
        // with a scripted listen provider, at the root and under /foo/bar/baz.
        .testTarget(
            name: "RealtimeDatabaseSpecTests",
            dependencies: ["CairnDatabaseCore"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
