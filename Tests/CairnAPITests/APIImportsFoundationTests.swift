import CairnCoreTestSupport
import CairnCore
import Cairn
import Testing

/// This file imports only Cairn (and Testing), as Firebase code imports only FirebaseFirestore: `Date`, `Data`,
/// `URL` and `NSNumber` come from `import Cairn`, or the file does not compile.
@Suite("API drop-in: import Cairn brings Foundation")
struct APIImportsFoundationTests {
    @Test("import Cairn alone makes Foundation's Date, Data, URL and NSNumber usable, as import FirebaseFirestore does")
    func foundationComesWithCairn() {
        let date = Date(timeIntervalSince1970: 1_700_000_000)
        let data = Data([0xCA, 0x19])
        let url = URL(fileURLWithPath: "cache", isDirectory: true)
        let settings = FirestoreSettings()
        settings.cacheSettings = PersistentCacheSettings(sizeBytes: NSNumber(value: 50 * 1024 * 1024), directory: url)
        #expect(Timestamp(date: date).seconds == 1_700_000_000)
        #expect(data.count == 2)
        #expect((settings.cacheSettings as? PersistentCacheSettings)?.directory == url)
    }
}
