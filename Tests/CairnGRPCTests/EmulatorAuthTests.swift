import CairnCore
import Cairn
import CairnModel
import Foundation
import Testing

@testable import CairnGRPC

/// Who the emulator sees: the token each ``EmulatorAuth`` sends, and its route through `GRPCDatastore.provider`. The
/// emulator's verdict on these tokens is in the security-rules end-to-end test.
@Suite("Emulator auth: owner, signed out, mock user")
struct EmulatorAuthTests {
    let database = DatabaseID(projectID: "demo-rules")

    /// The JSON object in a base64url JWT segment.
    func decodeSegment(_ segment: Substring) throws -> [String: Any] {
        var base64 = segment.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        let data = try #require(Data(base64Encoded: base64), "segment \(segment) is not base64url")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("owner sends the owner token; unauthenticated sends no authorization at all")
    func ownerAndSignedOut() async throws {
        let owner = FirestoreRPCConfiguration.emulator(databaseID: database, host: "127.0.0.1", port: 8080)
        #expect(try await owner.authTokenProvider?(false) == "owner")
        let signedOut = FirestoreRPCConfiguration.emulator(
            databaseID: database, host: "127.0.0.1", port: 8080, auth: .unauthenticated)
        let token = try await signedOut.authTokenProvider?(false)
        #expect(token == nil)
    }

    @Test("a mock user is an unsigned JWT with the Firebase ID-token claims for the uid and the project")
    func mockUser() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let token = try #require(EmulatorAuth.user(uid: "alice").token(projectID: "demo-rules", now: now))
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[2].isEmpty, "header.payload. with an empty signature: \(token)")
        let header = try decodeSegment(parts[0])
        #expect(header["alg"] as? String == "none")
        let claims = try decodeSegment(parts[1])
        #expect(claims["sub"] as? String == "alice" && claims["user_id"] as? String == "alice")
        #expect(claims["aud"] as? String == "demo-rules")
        #expect(claims["iss"] as? String == "https://securetoken.google.com/demo-rules")
        #expect(claims["iat"] as? Int == 1_800_000_000 && claims["exp"] as? Int == 1_800_003_600)
        let firebase = try #require(claims["firebase"] as? [String: Any])
        #expect(firebase["sign_in_provider"] as? String == "custom")
    }

    @Test("The gRPC datastore passes emulatorAuth to emulator hosts only; TLS hosts keep the provider's token")
    func transportRoute() async throws {
        let emulator = try GRPCDatastore.rpcConfiguration(
            databaseID: database, host: "127.0.0.1:8080", isSSLEnabled: false, authTokenProvider: { _ in "id-token" },
            emulatorAuth: .user(uid: "bob")
        ).get()
        let token = try #require(try await emulator.authTokenProvider?(false))
        let claims = try decodeSegment(token.split(separator: ".")[1])
        #expect(claims["sub"] as? String == "bob")
        let production = try GRPCDatastore.rpcConfiguration(
            databaseID: database, host: "firestore.googleapis.com", isSSLEnabled: true,
            authTokenProvider: { _ in "id-token" }, emulatorAuth: .unauthenticated
        ).get()
        #expect(try await production.authTokenProvider?(false) == "id-token")
    }
}
