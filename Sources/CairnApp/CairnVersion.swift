/// Cairn's release, what `Database.sdkVersion()` and `FirebaseVersion()` report in place of Firebase's SDK
/// version (a program that logs the version it runs on sees Cairn's, not a Firebase release it is not).
///
/// ```swift
/// print(FirebaseVersion())   // "0.7.0"
/// ```
package enum CairnVersion {
    /// `major.minor.patch`.
    package static let current = "0.7.0"
}

/// The version of the SDK in use (FirebaseCore's `FirebaseVersion()`): Cairn's, ``CairnVersion/current``.
public func FirebaseVersion() -> String { CairnVersion.current }
