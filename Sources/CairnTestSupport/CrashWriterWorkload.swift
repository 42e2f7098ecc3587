import SegmentLog

/// The workload of the crash writer, shared by `cairn crash-writer` and the tests that kill it: batch `i`
/// holds `1 + i % 4` records with keys `w<i>-<j>` and values derived from `i` and `j` alone, so whoever
/// reopens the log can check every byte without having seen the writer's memory.
public enum CrashWriterWorkload {
    public static func recordCount(batch i: Int) -> Int { 1 + i % 4 }

    public static func key(batch i: Int, record j: Int) -> [UInt8] { Array("w\(i)-\(j)".utf8) }

    public static func value(batch i: Int, record j: Int) -> [UInt8] {
        let line = #"{"batch":\#(i),"record":\#(j),"payload":"#
        let length = 200 + (i * 7 + j * 131) % 1800
        var value = Array(line.utf8)
        value.reserveCapacity(length + 2)
        var x = UInt32(truncatingIfNeeded: i &* 2_654_435_761 &+ j)
        while value.count < length {
            x = x &* 1_103_515_245 &+ 12345
            value.append(UInt8(97 + (x >> 16) % 26))
        }
        value += Array("\"}".utf8)
        return value
    }

    public static func batch(_ i: Int) -> WriteBatch {
        var batch = WriteBatch()
        for j in 0..<recordCount(batch: i) { batch.append(kind: 1, key: key(batch: i, record: j), value: value(batch: i, record: j)) }
        return batch
    }

    /// The batch index of a key `w<i>-<j>`.
    public static func batchIndex(of key: [UInt8]) -> Int? {
        let text = String(decoding: key, as: UTF8.self)
        guard text.hasPrefix("w"), let dash = text.firstIndex(of: "-") else { return nil }
        return Int(text[text.index(after: text.startIndex)..<dash])
    }

    /// Checks a recovered log: returns the number of complete batches (a prefix 0..<n), or a problem.
    public static func check(_ log: SegmentLog) throws -> Result<Int, CheckFailure> {
        var records: [Int: [Int: [UInt8]]] = [:]
        var problem: String?
        try log.scan { view in
            guard let i = batchIndex(of: view.keyBytes) else {
                problem = "unexpected key \(String(decoding: view.key, as: UTF8.self))"
                return
            }
            let j = Int(String(decoding: view.key, as: UTF8.self).split(separator: "-").last!)!
            records[i, default: [:]][j] = view.valueBytes
        }
        if let problem { return .failure(CheckFailure(message: problem)) }
        let count = records.count
        for i in 0..<count {
            guard let batch = records[i] else {
                return .failure(CheckFailure(message: "batch \(i) is missing but batch \(records.keys.max()!) exists: not a prefix"))
            }
            guard batch.count == recordCount(batch: i) else {
                return .failure(CheckFailure(message: "batch \(i) has \(batch.count) of \(recordCount(batch: i)) records: a partial batch"))
            }
            for (j, value) in batch where value != self.value(batch: i, record: j) {
                return .failure(CheckFailure(message: "record \(j) of batch \(i) has the wrong contents"))
            }
        }
        return .success(count)
    }

    public struct CheckFailure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
