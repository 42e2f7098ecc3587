/// `import Cairn` brings Foundation with it (`Date`, `Data`, `URL`, `NSNumber`, ...), as `import FirebaseFirestore`
/// does, so that Firebase code that imports only Firestore compiles unchanged.
@_exported import Foundation
/// `FirebaseApp` and `FirebaseOptions` live in `CairnApp`, shared with `CairnDatabase`.
@_exported import CairnApp
