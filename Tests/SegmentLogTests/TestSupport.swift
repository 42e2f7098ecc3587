import CairnTestSupport
import Foundation
@testable import SegmentLog

/// A fresh directory under the system temp folder, removed when the test is done with it.
final class TemporaryDirectory {
    let path: String

    init(_ label: String = "segmentlog") {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-\(label)-\(UUID().uuidString)").path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// The shared seeded generator (SplitMix64), so failures replay.
typealias SeededRandom = CairnTestSupport.SeededRandom

extension SegmentLog.Configuration {
    /// Small frames and segments so tests cross every boundary, on the simulated file system.
    static func small(_ fs: any FileSystem, durability: Durability = .full) -> SegmentLog.Configuration {
        var configuration = SegmentLog.Configuration()
        configuration.fileSystem = fs
        configuration.durability = durability
        configuration.frameTargetSize = 1024
        configuration.segmentTargetSize = 8192
        configuration.preallocationSize = 2048
        configuration.frameCacheBytes = 64 << 10
        return configuration
    }
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// A JSON-like value of about `size` bytes, compressible like real documents.
func documentValue(_ i: Int, size: Int = 200, using random: inout SeededRandom) -> [UInt8] {
    var text = #"{"id":\#(i),"name":"user-\#(i)","status":"\#(["active", "idle", "gone"][i % 3])","tags":["#
    while text.utf8.count < size {
        text += "\"t\(random.next() % 1000)\","
    }
    text += "\"end\"]}"
    return Array(text.utf8)
}

/// All records of a log, in scan order.
func allRecords(_ log: SegmentLog) throws -> [Record] {
    var records: [Record] = []
    try log.scan { records.append($0.record) }
    return records
}
