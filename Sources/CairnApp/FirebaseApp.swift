import Foundation
import Synchronization

/// A configured Firebase app: a name and its ``FirebaseOptions``, shared by both products (module `CairnApp`,
/// re-exported by `Cairn` and `CairnDatabase`). `Firestore.firestore()` and `Database.database()` use the default
/// app; `Firestore.firestore(app:)` and `Database.database(app:)` any other.
///
/// As in Firebase, configuring is a one-time setup step: configuring a name twice, or asking for the default
/// app before configuring it, is a programming error and stops the program with Firebase's message.
///
/// ```swift
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "my-project"))
/// let db = Firestore.firestore()
///
/// let other = FirebaseOptions(projectID: "analytics")
/// FirebaseApp.configure(name: "analytics", options: other)
/// let analytics = Firestore.firestore(app: FirebaseApp.app(name: "analytics")!)
/// ```
public final class FirebaseApp: @unchecked Sendable, CustomStringConvertible {
    /// The name of the default app, as Firebase spells it.
    public static let defaultAppName = "__FIRAPP_DEFAULT"

    public let name: String
    /// A copy of the options the app was configured with.
    public let options: FirebaseOptions

    private static let apps = Mutex<[String: FirebaseApp]>([:])
    /// What each product (Firestore, the Realtime Database) does when an app is deleted, by product name.
    private static let deletionHooks = Mutex<[String: @Sendable (FirebaseApp) -> Void]>([:])

    private init(name: String, options: FirebaseOptions) {
        self.name = name
        self.options = options.copy()
    }

    /// Configures the default app from ``FirebaseOptions/defaultOptions()`` (the environment).
    public static func configure() {
        guard let options = FirebaseOptions.defaultOptions() else {
            preconditionFailure(
                "FirebaseApp.configure() could not find default options: set FIREBASE_PROJECT_ID (or "
                    + "GOOGLE_CLOUD_PROJECT) in the environment, or call FirebaseApp.configure(options:).")
        }
        configure(options: options)
    }

    /// Configures the default app.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultAppName, options: options)
    }

    /// Configures an app named `name`.
    public static func configure(name: String, options: FirebaseOptions) {
        precondition(!name.isEmpty, "Firebase App name cannot be empty.")
        apps.withLock { apps in
            precondition(
                apps[name] == nil,
                name == defaultAppName
                    ? "Default app has already been configured."
                    : "App named \(name) has already been configured.")
            apps[name] = FirebaseApp(name: name, options: options)
        }
    }

    /// The default app, or `nil` before ``configure(options:)``.
    public static func app() -> FirebaseApp? { app(name: defaultAppName) }

    /// The app named `name`, or `nil`.
    public static func app(name: String) -> FirebaseApp? { apps.withLock { $0[name] } }

    /// Every configured app by name; `nil` when there is none (as in Firebase).
    public static var allApps: [String: FirebaseApp]? {
        let all = apps.withLock { $0 }
        return all.isEmpty ? nil : all
    }

    /// Registers what `product` does when an app is deleted (terminate its instances); registering the same
    /// product again replaces its hook.
    package static func registerDeletionHook(product: String, _ hook: @escaping @Sendable (FirebaseApp) -> Void) {
        deletionHooks.withLock { $0[product] = hook }
    }

    /// Removes the app (its name can be configured again) and terminates the instances every product holds for it
    /// (Firestore, the Realtime Database).
    public func delete(_ completion: @escaping (Bool) -> Void) {
        let removed = Self.apps.withLock { apps in
            guard apps[name] === self else { return false }
            apps[name] = nil
            return true
        }
        if removed {
            let hooks = Self.deletionHooks.withLock { $0.sorted { $0.key < $1.key }.map(\.value) }
            for hook in hooks { hook(self) }
        }
        completion(removed)
    }

    public var description: String { "FirebaseApp(\(name), \(options))" }
}
