// The benchmark's temporary files: one directory made with mkdtemp, holding the fixtures and each run's
// store, removed when the suite ends (also when it fails).

import Foundation

/// A temporary directory and the subdirectories the suite creates in it.
final class ScratchDirectory {
    let path: String

    /// Creates `<temporary directory>/cairn-bench.XXXXXX`.
    init() throws {
        let temporary = NSTemporaryDirectory().hasSuffix("/") ? NSTemporaryDirectory() : NSTemporaryDirectory() + "/"
        var template = Array((temporary + "cairn-bench.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw BenchError("cannot create a temporary directory: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    /// A new, empty directory `name` inside the scratch directory (an old one of that name is removed).
    func freshDirectory(_ name: String) throws -> String {
        let directory = path + "/" + name
        try remove(directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Removes a directory the suite created; nothing happens when it does not exist.
    func remove(_ directory: String) throws {
        if FileManager.default.fileExists(atPath: directory) {
            try FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Removes the whole scratch directory.
    func removeAll() throws { try remove(path) }

    /// Bytes of the regular files under `directory`, for reporting how much disk a store takes.
    func diskBytes(_ directory: String) -> Int { Self.diskBytes(directory) }

    /// Bytes of the regular files under `directory` (any directory, not only the scratch directory's).
    static func diskBytes(_ directory: String) -> Int {
        guard let files = FileManager.default.enumerator(atPath: directory) else { return 0 }
        var total = 0
        for case let name as String in files {
            let attributes = try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)
            if attributes?[.type] as? FileAttributeType == .typeRegular {
                total += (attributes?[.size] as? NSNumber)?.intValue ?? 0
            }
        }
        return total
    }
}
