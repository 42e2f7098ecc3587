import Foundation

/// The options of a ``FirebaseApp``: for Firestore, the Google Cloud project whose database it opens; for the
/// Realtime Database, its ``databaseURL``.
///
/// Firebase's Apple SDK reads these from `GoogleService-Info.plist`; Cairn builds them in code or from the
/// environment (see ``defaultOptions()``):
///
/// ```swift
/// let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
/// options.projectID = "my-project"
/// FirebaseApp.configure(options: options)
/// // or, Cairn only:
/// FirebaseApp.configure(options: FirebaseOptions(projectID: "my-project"))
/// ```
public final class FirebaseOptions: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The Google App ID (Firebase's identifier of the app). Cairn keeps it but does not use it.
    public var googleAppID: String
    /// The Cloud Messaging sender ID. Cairn keeps it but does not use it.
    public var gcmSenderID: String
    /// The Google Cloud project ID: Firestore opens `projects/<projectID>/databases/<database>`.
    public var projectID: String?
    /// The API key sent with requests, if any.
    public var apiKey: String?
    public var bundleID: String
    public var clientID: String?
    /// The Realtime Database URL (`https://<namespace>.firebaseio.com` or a regional host); `Database.database()`
    /// opens it.
    public var databaseURL: String?
    public var storageBucket: String?

    /// Firebase's designated initializer.
    public init(googleAppID: String, gcmSenderID: String) {
        self.googleAppID = googleAppID
        self.gcmSenderID = gcmSenderID
        self.bundleID = Bundle.main.bundleIdentifier ?? ""
    }

    /// Options for `projectID` alone (Cairn; Firestore needs nothing else).
    public convenience init(projectID: String) {
        self.init(googleAppID: "", gcmSenderID: "")
        self.projectID = projectID
    }

    /// The options from the environment: the project ID from `FIREBASE_PROJECT_ID`, `GOOGLE_CLOUD_PROJECT` or
    /// `GCLOUD_PROJECT` (the first one set), the API key from `FIREBASE_API_KEY`; `nil` when no project ID is set.
    public static func defaultOptions() -> FirebaseOptions? {
        let environment = ProcessInfo.processInfo.environment
        let names = ["FIREBASE_PROJECT_ID", "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT"]
        guard let project = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return nil
        }
        let options = FirebaseOptions(projectID: project)
        options.apiKey = environment["FIREBASE_API_KEY"]
        return options
    }

    /// A copy, as `FirebaseApp.configure(options:)` keeps one (Firebase's `NSCopying`).
    public func copy() -> FirebaseOptions {
        let copy = FirebaseOptions(googleAppID: googleAppID, gcmSenderID: gcmSenderID)
        copy.projectID = projectID
        copy.apiKey = apiKey
        copy.bundleID = bundleID
        copy.clientID = clientID
        copy.databaseURL = databaseURL
        copy.storageBucket = storageBucket
        return copy
    }

    public static func == (a: FirebaseOptions, b: FirebaseOptions) -> Bool {
        (a.googleAppID, a.gcmSenderID, a.projectID, a.apiKey, a.bundleID)
            == (b.googleAppID, b.gcmSenderID, b.projectID, b.apiKey, b.bundleID)
            && (a.clientID, a.databaseURL, a.storageBucket) == (b.clientID, b.databaseURL, b.storageBucket)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(googleAppID)
        hasher.combine(projectID)
    }

    public var description: String { "FirebaseOptions(projectID: \(projectID ?? "nil"))" }
}
