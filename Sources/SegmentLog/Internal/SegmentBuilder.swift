// Writes a new sealed segment from already-committed records (compaction and salvage). The file is created
// with its header, frames are appended as they fill, and `seal` syncs it (compaction leaves the syncs to its
// publication, off the caller's thread). Until a manifest names it, the file is an orphan that opening the log
// removes, so a crash at any point is harmless.

final class SegmentBuilder {
    let id: UInt32
    let handle: any StorageFile
    /// Whether creating and sealing the file sync it.
    let synced: Bool
    private let path: String
    private let fileSystem: any FileSystem
    private var packer: FramePacker
    private(set) var length = UInt64(SegmentFormat.segmentHeaderSize)
    private(set) var recordCount: UInt64 = 0
    private(set) var recordBytes: UInt64 = 0
    private(set) var minLSN = UInt64.max
    private(set) var maxLSN: UInt64 = 0

    /// With `synced` false, neither creating the file nor ``seal()`` syncs anything: the caller syncs
    /// the file and the directory before a manifest names it.
    init(id: UInt32, cacheID: UInt64, directory: String, configuration: SegmentLog.Configuration, synced: Bool = true) throws {
        self.id = id
        self.synced = synced
        self.fileSystem = configuration.fileSystem
        self.path = joinPath(directory, SegmentFormat.segmentFileName(id))
        self.handle = try SegmentLog.createSegmentFile(
            id: id, cacheID: cacheID, in: directory, fileSystem: configuration.fileSystem, sync: synced)
        self.packer = FramePacker(
            targetSize: configuration.frameTargetSize, compress: configuration.compression,
            baseOffset: UInt64(SegmentFormat.segmentHeaderSize), segment: id)
    }

    /// Bytes the segment will have once what was added is written.
    var estimatedSize: UInt64 { length + UInt64(packer.estimatedSize) }

    func add(_ view: RecordView) {
        packer.addCommitted(kind: view.kind, lsn: view.lsn, key: view.key, value: view.value)
        minLSN = min(minLSN, view.lsn)
        maxLSN = max(maxLSN, view.lsn)
    }

    /// Writes the frames finished so far (about every megabyte, to bound memory); returns the new locations
    /// of the records they hold, in the order the records were added.
    func writeFinishedFrames() throws -> [RecordLocation] {
        guard packer.estimatedSize >= 1 << 20 else { return [] }
        return try write()
    }

    /// Writes everything and syncs the file (unless made with `synced` false); returns the new locations not
    /// returned before.
    func seal() throws -> [RecordLocation] {
        packer.finishFrame(commit: true)
        let locations = try write()
        if synced { try handle.sync() }
        return locations
    }

    private func write() throws -> [RecordLocation] {
        let (bytes, locations) = packer.take()
        guard !bytes.isEmpty else { return [] }
        try handle.write(bytes, at: length)
        length += UInt64(bytes.count)
        recordCount += UInt64(locations.count)
        for location in locations { recordBytes += UInt64(location.size) }
        return locations
    }

    /// The manifest entry for the sealed segment.
    var manifestEntry: Manifest.Entry {
        Manifest.Entry(
            id: id, isActive: false, length: length, recordCount: recordCount, recordBytes: recordBytes,
            minLSN: recordCount == 0 ? 0 : minLSN, maxLSN: maxLSN)
    }

    /// Closes and deletes the unpublished file.
    func discard() {
        try? handle.close()
        try? fileSystem.removeFile(at: path)
    }
}
