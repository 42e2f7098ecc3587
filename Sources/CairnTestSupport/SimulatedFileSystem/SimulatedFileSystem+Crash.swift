// SimulatedFileSystem+Crash — what survives a power loss, and injected I/O faults, for ``SimulatedFileSystem``.
//
// Each inode keeps its durable image and the mutations applied since its last sync; a sync folds them in.
// A crash image keeps, per directory, the names as of its last `syncDirectory(at:)`, and per file its bytes
// as of its last `sync()` plus a part of its later mutations that the ``CrashModel`` chooses. All choices
// come from a ``SeededRandom`` (SplitMix64) seeded by the caller (and the file's inode number), so a failing
// seed replays.

import SegmentLog

/// Which unsynced file data survives in ``SimulatedFileSystem/crashImage(_:seed:keepingUnsyncedDirectoryChanges:)``.
/// Every model keeps all data made durable by a successful `sync()`.
public enum CrashModel: Sendable, Hashable, CaseIterable {
    /// Nothing written since a file's last sync survives.
    case dropUnsyncedData
    /// Everything written survives: each file holds exactly its current bytes.
    case keepUnsyncedData
    /// A random-length prefix of each file's unsynced writes and truncations survives, in order; the last
    /// write kept may be torn to a random prefix of its bytes. Models a disk that persists in order.
    case randomPrefix
    /// Each unsynced write is cut at 4096-byte file offsets and every piece independently survives or not;
    /// truncations always apply, in order. Models a disk that reorders page write-back (harsh).
    case randomPages
}

/// A failure ``SimulatedFileSystem/injectFault(_:)`` arms. Counted faults add up when injected twice.
/// Injected faults throw ``StorageError/Code/io`` with the errno named below. They do not crash the file
/// system, and a call they fail counts in ``SimulatedFileSystem/operationCount`` like any other attempt.
public enum InjectedFault: Sendable, Hashable {
    /// The next `count` calls to ``StorageFile/sync()`` fail with EIO; the file's data stays unsynced (a
    /// crash image may still lose it). Directory syncs are not affected: use `failAlways(.syncDirectory)`.
    case failSyncs(count: Int)
    /// The next `count` writes fail with ENOSPC and write nothing.
    case failWrites(count: Int)
    /// The next write writes its first `keeping` bytes (clamped to the write's length), then fails with ENOSPC.
    case shortWrite(keeping: Int)
    /// Every call of this kind fails with EIO, writing nothing, until ``SimulatedFileSystem/clearFaults()``.
    case failAlways(Operation)

    /// A kind of call, for ``InjectedFault/failAlways(_:)``.
    public enum Operation: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// ``FileSystem/createDirectory(at:)``.
        case createDirectory
        /// ``FileSystem/contentsOfDirectory(at:)``.
        case contentsOfDirectory
        /// ``FileSystem/exists(_:)``.
        case exists
        /// ``FileSystem/open(_:_:)``, every mode.
        case open
        /// ``FileSystem/removeFile(at:)``.
        case removeFile
        /// ``FileSystem/rename(_:to:)``.
        case rename
        /// ``FileSystem/syncDirectory(at:)``.
        case syncDirectory
        /// ``FileSystem/lock(_:owner:)``.
        case lock
        /// ``StorageFile/read(into:at:)``.
        case read
        /// ``StorageFile/write(_:at:)``.
        case write
        /// ``StorageFile/size()``.
        case size
        /// ``StorageFile/truncate(to:)``.
        case truncate
        /// ``StorageFile/sync()``.
        case sync
        /// ``StorageFile/close()`` (the handle is closed anyway, as with POSIX `close`).
        case close

        /// The operation's name, as used in error messages.
        public var description: String {
            switch self {
            case .createDirectory: "createDirectory"
            case .contentsOfDirectory: "contentsOfDirectory"
            case .exists: "exists"
            case .open: "open"
            case .removeFile: "removeFile"
            case .rename: "rename"
            case .syncDirectory: "syncDirectory"
            case .lock: "lock"
            case .read: "read"
            case .write: "write"
            case .size: "size"
            case .truncate: "truncate"
            case .sync: "sync"
            case .close: "close"
            }
        }
    }
}

extension SimulatedFileSystem {
    /// One unsynced change to a file, kept so a crash image can replay some of them.
    enum Mutation: Sendable {
        case write(offset: Int, bytes: [UInt8])
        case truncate(size: Int)

        // Raw memory copies: generic array operations are slow in the debug builds tests run in.
        func apply(to file: inout [UInt8]) {
            switch self {
            case let .write(offset, bytes):
                guard !bytes.isEmpty else { return }
                if offset + bytes.count > file.count { Self.resize(&file, to: offset + bytes.count) }
                file.withUnsafeMutableBytes { target in
                    bytes.withUnsafeBytes { source in
                        (target.baseAddress! + offset).copyMemory(
                            from: source.baseAddress!, byteCount: source.count)
                    }
                }
            case let .truncate(size):
                Self.resize(&file, to: size)
            }
        }

        static func resize(_ file: inout [UInt8], to size: Int) {
            if size < file.count {
                file.removeLast(file.count - size)
            } else if size > file.count {
                let added = size - file.count
                if size > file.capacity { file.reserveCapacity(Swift.max(size, file.capacity * 2)) }
                file.append(contentsOf: [UInt8](unsafeUninitializedCapacity: added) { buffer, count in
                    UnsafeMutableRawBufferPointer(buffer).initializeMemory(as: UInt8.self, repeating: 0)
                    count = added
                })
            }
        }
    }

    struct Inode: Sendable {
        var current: [UInt8] = []
        var durable: [UInt8] = []
        var pending: [Mutation] = []

        mutating func apply(_ mutation: Mutation) {
            mutation.apply(to: &current)
            pending.append(mutation)
        }
    }
}

extension SimulatedFileSystem {
    /// Arms a fault for the following calls. See ``InjectedFault``.
    public func injectFault(_ fault: InjectedFault) {
        state.withLock { state in
            switch fault {
            case let .failSyncs(count): state.faults.failingSyncs += max(count, 0)
            case let .failWrites(count): state.faults.failingWrites += max(count, 0)
            case let .shortWrite(keeping): state.faults.shortWrite = keeping
            case let .failAlways(operation): state.faults.persistent.insert(operation)
            }
        }
    }

    /// Disarms every injected fault (it does not undo a crash).
    public func clearFaults() {
        state.withLock { $0.faults = Faults() }
    }

    /// A new file system holding what the disk would hold after a power loss at this moment; works whether
    /// or not this one crashed, and leaves it unchanged.
    ///
    /// Each directory has the names it had at its last ``syncDirectory(at:)`` (its current names when
    /// `keepingUnsyncedDirectoryChanges`); a file created but never made durable by a directory sync is
    /// gone, and a durable name whose data was never synced holds its last synced bytes (maybe none).
    /// Each file's bytes are its durable image plus the unsynced mutations `model` keeps, decided by a
    /// PRNG seeded from `seed`: the same state, model and seed always give the same image. The image has
    /// no open handles, no locks, no faults, no crash point and an ``operationCount`` of 0.
    public func crashImage(
        _ model: CrashModel, seed: UInt64, keepingUnsyncedDirectoryChanges: Bool = false
    ) -> SimulatedFileSystem {
        let image = state.withLock {
            $0.crashImage(model, seed: seed, keepingUnsyncedDirectoryChanges: keepingUnsyncedDirectoryChanges)
        }
        return SimulatedFileSystem(state: image)
    }

    /// The armed faults.
    struct Faults: Sendable {
        var failingSyncs = 0
        var failingWrites = 0
        var shortWrite: Int?
        var persistent: Set<InjectedFault.Operation> = []
    }
}

extension SimulatedFileSystem.State {
    func crashImage(
        _ model: CrashModel, seed: UInt64, keepingUnsyncedDirectoryChanges: Bool
    ) -> SimulatedFileSystem.State {
        var image = SimulatedFileSystem.State(seed: SeededRandom.mix(seed))
        image.directories = [:]
        var survivors = Set<Int>()
        for (path, directory) in directories {
            let names = keepingUnsyncedDirectoryChanges ? directory.current : directory.durable
            image.directories[path] = SimulatedFileSystem.Directory(current: names, durable: names)
            survivors.formUnion(names.values)
        }
        for inode in survivors.sorted() {
            guard let file = inodes[inode] else { continue }
            // One stream per inode, so a file's fate does not depend on which other files exist.
            var random = SeededRandom(seed: seed ^ SeededRandom.mix(UInt64(inode)))
            let bytes = file.survivingBytes(model, random: &random)
            image.inodes[inode] = SimulatedFileSystem.Inode(current: bytes, durable: bytes, pending: [])
        }
        image.nextInode = nextInode
        return image
    }
}

extension SimulatedFileSystem.Inode {
    /// The durable image plus the pending mutations `model` keeps.
    func survivingBytes(_ model: CrashModel, random: inout SeededRandom) -> [UInt8] {
        switch model {
        case .dropUnsyncedData:
            return durable
        case .keepUnsyncedData:
            return current
        case .randomPrefix:
            var bytes = durable
            let kept = random.below(pending.count + 1)
            for (index, mutation) in pending.prefix(kept).enumerated() {
                if index == kept - 1, case let .write(offset, data) = mutation {
                    let length = random.below(data.count + 1)
                    if length > 0 {
                        SimulatedFileSystem.Mutation.write(offset: offset, bytes: Array(data[..<length]))
                            .apply(to: &bytes)
                    }
                } else {
                    mutation.apply(to: &bytes)
                }
            }
            return bytes
        case .randomPages:
            let page = 4096
            var bytes = durable
            for mutation in pending {
                guard case let .write(offset, data) = mutation else {
                    mutation.apply(to: &bytes)
                    continue
                }
                var start = offset
                let end = offset + data.count
                while start < end {
                    let pieceEnd = min((start / page + 1) * page, end)
                    if random.next() & 1 == 1 {
                        SimulatedFileSystem.Mutation.write(
                            offset: start, bytes: Array(data[(start - offset)..<(pieceEnd - offset)])
                        ).apply(to: &bytes)
                    }
                    start = pieceEnd
                }
            }
            return bytes
        }
    }
}
