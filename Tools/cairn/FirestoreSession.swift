import ArgumentParser
import Cairn
import CairnCore
import CairnGRPC
import CairnModel
import Dispatch
import Foundation

// What the commands that use the public API share (waiting for async work: CairnTestSupport's `runBlocking`): the
// emulator's address as an option value, and a Firestore instance on a persistent cache, online over gRPC.

/// A Firestore emulator's address, `host:port` on the command line (the form of `FIRESTORE_EMULATOR_HOST`).
struct EmulatorAddress: ExpressibleByArgument, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"), colon != argument.startIndex,
            let port = Int(argument[argument.index(after: colon)...]), (1...65535).contains(port)
        else { return nil }
        self.init(host: String(argument[..<colon]), port: port)
    }

    var description: String { "\(host):\(port)" }

    /// A raw gRPC client of `project` on this emulator (Commit, BatchGetDocuments, RunQuery), to look at what
    /// the server holds without going through a cache.
    func rpcClient(project: String) throws -> FirestoreRPC {
        try FirestoreRPC(configuration: .emulator(databaseID: DatabaseID(projectID: project), host: host, port: port))
    }
}

/// Opens app `appName` of `project` (configured on first use) with a persistent cache in `directory`, talking
/// gRPC to the emulator at `emulator` (no server when it is nil). Callbacks run on a queue of their own.
///
/// ```swift
/// let db = try openPersistentFirestore(appName: "child", project: "demo", directory: cache, emulator: address)
/// try await db.disableNetwork()
/// ```
func openPersistentFirestore(
    appName: String, project: String, directory: URL, emulator: EmulatorAddress?
) throws -> Firestore {
    if FirebaseApp.app(name: appName) == nil {
        FirebaseApp.configure(name: appName, options: FirebaseOptions(projectID: project))
    }
    guard let app = FirebaseApp.app(name: appName) else {
        throw FirestoreErrorCode(.invalidArgument, "The app \"\(appName)\" could not be configured for project \(project).")
    }
    let db = Firestore.firestore(app: app)
    let settings = db.settings
    settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 100 << 20), directory: directory)
    settings.dispatchQueue = DispatchQueue(label: "cairn.\(appName).callbacks")
    if emulator == nil { settings.datastoreProvider = UnreachableDatastore.provider }
    db.settings = settings
    if let emulator { db.useEmulator(withHost: emulator.host, port: emulator.port) }
    return db
}

/// Writes `line` and a newline to stdout at once, unbuffered, so that a parent reading the pipe sees it even if
/// this process ends abruptly right after.
func printNow(_ line: String) {
    print(line)
    fflush(nil)
}
