import CairnDatabase
import Testing

@Suite("The SDK version")
struct DatabaseVersionTests {
    @Test("Database.sdkVersion() and FirebaseVersion() report Cairn's release as major.minor.patch")
    func version() {
        let version = Database.sdkVersion()
        #expect(version == FirebaseVersion())
        let parts = version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(version)")
    }
}
