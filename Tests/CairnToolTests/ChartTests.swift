import Foundation
import CairnLocalStore
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// `cairn stats --svg`: a well-formed SVG with a bar per segment, the threshold and every collection.
@Suite("cairn stats --svg")
struct ChartTests {
    @Test("the picture has one bar per segment, the threshold line on the total's scale, and every collection")
    func picture() throws {
        let directory = try TemporaryDirectory()
        defer { directory.cleanUp() }
        let cache = directory.path + "/cache"
        try SampleCache.build(at: cache)
        let inspector = try CacheInspector.open(at: cache)
        let statistics = try inspector.statistics(threshold: 3000)
        inspector.close()
        let svgPath = directory.path + "/stats.svg"
        let run = try Cairn.run(["stats", cache, "--threshold", "3000", "--svg", svgPath])
        #expect(run.status == 0, "\(run.stderr)")
        let svg = try String(contentsOfFile: svgPath, encoding: .utf8)
        _ = try XMLDocument(data: Data(svg.utf8))  // well-formed
        for segment in statistics.segments {
            #expect(svg.contains("<title>segment \(segment.id): \(segment.fileBytes) bytes on disk"), "segment \(segment.id)")
        }
        for collection in statistics.collections {
            #expect(svg.contains("<title>\(collection.path): \(collection.documents) document(s), \(collection.bytes) bytes</title>"))
        }
        #expect(svg.contains("stroke-dasharray=\"6 4\"/>\n<text") && svg.contains(">threshold 2.9 KiB</text>"))
        // A threshold far above the cache is named, not drawn off the page.
        let far = try Cairn.run(["stats", cache, "--threshold", "1000000000", "--svg", svgPath])
        #expect(far.status == 0)
        #expect(try String(contentsOfFile: svgPath, encoding: .utf8).contains("off this scale"))
    }
}
