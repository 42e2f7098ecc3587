// CairnDatabase: Firebase's Realtime Database for Swift. `import CairnDatabase` in place of `import FirebaseDatabase`.
//
// API/ — the public surface, named and shaped as Firebase's Apple SDK, over the core's `Repo` (CairnDatabaseCore).

/// `import CairnDatabase` brings Foundation with it (`NSNumber`, `DispatchQueue`, ...), as `import FirebaseDatabase`
/// does, and the shared `FirebaseApp` / `FirebaseOptions` (module `CairnApp`).
@_exported import CairnApp
@_exported import Foundation
