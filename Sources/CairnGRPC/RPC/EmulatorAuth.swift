import Foundation

/// Who the Firestore emulator sees as the caller, and so whether its security rules apply.
///
/// The emulator lets the token `owner` bypass security rules; that is the default, as the server SDKs do. To test
/// an app's rules, connect as a signed-out user or as a user with a mock ID token (an unsigned JWT, like
/// Firebase's `mockUserToken`): the emulator accepts unsigned tokens and gives rules `request.auth.uid`.
///
/// ```swift
/// settings.datastoreProvider = GRPCDatastore.provider(
///     authTokenProvider: nil, emulatorAuth: .user(uid: "alice"))   // rules see request.auth.uid == "alice"
/// let configuration = FirestoreRPCConfiguration.emulator(
///     databaseID: database, host: "127.0.0.1", port: 8080, auth: .unauthenticated)   // request.auth == null
/// ```
package enum EmulatorAuth: Sendable, Hashable {
    /// `Authorization: Bearer owner`: an administrator; security rules do not apply.
    case owner
    /// No `authorization` header: rules see `request.auth == null`.
    case unauthenticated
    /// A mock Firebase ID token for `uid`, unsigned (only the emulator accepts it).
    case user(uid: String)

    /// The bearer token to send for `projectID` (nil: none).
    func token(projectID: String, now: Date = Date()) -> String? {
        switch self {
        case .owner: "owner"
        case .unauthenticated: nil
        case .user(let uid): Self.mockIDToken(uid: uid, projectID: projectID, now: now)
        }
    }

    /// An unsigned JWT (`alg: none`, empty signature) with the claims of a Firebase ID token for `uid`.
    static func mockIDToken(uid: String, projectID: String, now: Date) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        let header: [String: Any] = ["alg": "none", "typ": "JWT"]
        let claims: [String: Any] = [
            "iss": "https://securetoken.google.com/\(projectID)", "aud": projectID, "iat": issuedAt,
            "exp": issuedAt + 3600, "auth_time": issuedAt, "sub": uid, "user_id": uid,
            "firebase": ["sign_in_provider": "custom", "identities": [String: Any]()],
        ]
        return [header, claims].map(base64URL).joined(separator: ".") + "."
    }

    private static func base64URL(_ object: [String: Any]) -> String {
        // Dictionaries of strings and integers always serialize.
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
