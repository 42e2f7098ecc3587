import CairnDatabase
import Dispatch

/// A Realtime Database of its own app, `name`, on namespace `namespace` of the server at `emulator`, its callbacks
/// on `queue`; with `directory`, persistence on there (`cacheSize` bytes when given). What the hidden child
/// commands of the tests and the demo (`database-child`, `database-demo-client`) open.
///
/// ```swift
/// let database = openDatabase(app: "database-child", namespace: "ns", emulator: address,
///                             queue: DispatchQueue(label: "callbacks"), directory: "/tmp/cache")
/// ```
func openDatabase(
    app name: String, namespace: String, emulator: EmulatorAddress, queue: DispatchQueue, directory: String?,
    cacheSize: UInt? = nil
) -> Database {
    let options = FirebaseOptions(googleAppID: "1:1:ios:1", gcmSenderID: "1")
    options.databaseURL = "https://\(namespace).firebaseio.com"
    FirebaseApp.configure(name: name, options: options)
    let database = Database.database(app: FirebaseApp.app(name: name)!)
    database.callbackQueue = queue
    database.useEmulator(withHost: emulator.host, port: emulator.port)
    if let directory {
        database.isPersistenceEnabled = true
        if let cacheSize { database.persistenceCacheSizeBytes = cacheSize }
        database.usePersistenceDirectory(directory)
    }
    return database
}
