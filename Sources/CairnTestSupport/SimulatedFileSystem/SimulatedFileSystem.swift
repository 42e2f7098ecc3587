// SimulatedFileSystem — an in-memory ``FileSystem`` for fast unit tests and for crash-consistency tests.
//
// The model follows LevelDB's FaultInjectionTestEnv and SQLite's test6.c crash VFS:
//
// * Every file is an inode holding its `current` bytes (what reads see) and its `durable` image (its bytes
//   as of its last successful `sync()`), plus the ordered list of mutations (writes, truncations) since then.
// * Every directory maps names to inodes twice: the `current` map (what `open`, `exists` and listings see)
//   and the `durable` map (as of the last successful `syncDirectory(at:)` of that directory). A created,
//   renamed or removed name is therefore lost in a crash unless its directory was synced afterwards.
//   Directories themselves are durable as soon as `createDirectory` returns.
// * Every mutating or durability operation (write, truncate, sync, syncDirectory, rename, removeFile,
//   open(.createNew), createDirectory) is counted in `operationCount`. Setting `crashAtOperation = N` makes
//   operation number N fail as a power cut would: it throws (a write may first apply a random prefix of its
//   bytes, a torn write) and from then on every call of any kind throws.
// * `crashImage(_:seed:)` builds a new file system holding what the disk would hold after a power loss now:
//   the durable directory maps (optionally the current ones), and per file its durable image plus some of
//   its unsynced mutations, chosen by a ``CrashModel`` and a seeded PRNG, so a failing run replays from its
//   seed. The image holds no locks and no open handles.
//
// Besides crashes, `injectFault(_:)` makes syncs or writes fail (EIO, ENOSPC), or a write short.
//
// Files: SimulatedFileSystem.swift (names, handles, locks, the crash point), SimulatedFileSystem+State.swift
// (the state behind the mutex), SimulatedFileSystem+Crash.swift (unsynced mutations, crash images, fault
// injection) and SimulatedFileHandle.swift (handles and locks). Test machinery: it lives in CairnTestSupport,
// not in the SegmentLog product.
import SegmentLog
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An in-memory ``FileSystem`` that can crash at any counted operation and inject I/O faults.
///
/// ```swift
/// let fs = SimulatedFileSystem()
/// fs.crashAtOperation = 7                        // the 7th write/sync/rename/... fails, then everything does
/// try? runWorkload(on: fs)
/// let disk = fs.crashImage(.randomPrefix, seed: 42) // what survived the power cut
/// try recoverAndVerify(on: disk)
/// ```
///
/// Paths are absolute strings such as `"/db/000001.seg"`; repeated and trailing slashes, `.` and `..` are
/// normalised, and a relative path is taken from `/`. Only regular files can be opened, renamed or removed.
/// A file may grow to at most 4 GiB. Errors carry the same codes and errno values as ``PosixFileSystem``'s
/// (a test compares the two). All state sits behind one mutex, so the type is safe to share.
public final class SimulatedFileSystem: FileSystem {
    let state: Mutex<State>

    /// An empty file system in which only `/` exists. `seed` drives the PRNG that decides how much of a
    /// write survives when it is the operation chosen by ``crashAtOperation``.
    public init(seed: UInt64 = 0) {
        state = Mutex(State(seed: seed))
    }

    init(state: State) {
        self.state = Mutex(state)
    }

    /// How many counted operations (write, truncate, sync, syncDirectory, rename, removeFile,
    /// open(.createNew), createDirectory) were attempted, failed ones included. Frozen once crashed.
    public var operationCount: Int {
        state.withLock { $0.operationCount }
    }

    /// The 1-based number of the counted operation that crashes the file system, or `nil` for none. A value
    /// not above ``operationCount`` never fires.
    public var crashAtOperation: Int? {
        get { state.withLock { $0.crashAtOperation } }
        set { state.withLock { $0.crashAtOperation = newValue } }
    }

    /// Whether the simulated crash happened; from then on every operation throws.
    public var isCrashed: Bool {
        state.withLock { $0.crashedAt != nil }
    }

    // MARK: FileSystem

    /// Creates the directory and any missing parents (a counted operation). Directories are durable at once.
    public func createDirectory(at path: String) throws {
        try state.withLock { try $0.createDirectory(Self.normalize(path)) }
    }

    /// The names of the files and subdirectories in a directory, in no particular order.
    public func contentsOfDirectory(at path: String) throws -> [String] {
        try state.withLock { try $0.contentsOfDirectory(Self.normalize(path)) }
    }

    /// Whether a file or directory exists at `path` now (not necessarily durably).
    public func exists(_ path: String) throws -> Bool {
        try state.withLock { try $0.exists(Self.normalize(path)) }
    }

    /// Opens a regular file. `.createNew` is a counted operation; the new name becomes durable only after
    /// ``syncDirectory(at:)``. A missing file or parent directory fails with ``StorageError/Code/notFound``,
    /// an existing one with `.createNew` with ``StorageError/Code/io`` (EEXIST).
    public func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        let normalized = Self.normalize(path)
        let id = try state.withLock { try $0.open(normalized, mode) }
        return SimulatedFileHandle(fileSystem: self, id: id, path: normalized)
    }

    /// Removes a file's name (a counted operation). Open handles keep working on the file's data.
    public func removeFile(at path: String) throws {
        try state.withLock { try $0.removeFile(Self.normalize(path)) }
    }

    /// Atomically points `target` at `source`'s file and removes `source` (a counted operation).
    public func rename(_ source: String, to target: String) throws {
        try state.withLock { try $0.rename(Self.normalize(source), to: Self.normalize(target)) }
    }

    /// Makes the directory's current names durable (a counted operation).
    public func syncDirectory(at path: String) throws {
        try state.withLock { try $0.syncDirectory(Self.normalize(path)) }
    }

    /// Takes an in-process exclusive lock on `path`, creating the lock file (not durably) and writing
    /// `owner` into it. Not a counted operation. Fails with ``StorageError/Code/locked`` naming the holder's
    /// owner string while another lock on the same path is held. A crash image holds no locks.
    public func lock(_ path: String, owner: String) throws -> any FileLock {
        let normalized = Self.normalize(path)
        let token = try state.withLock { try $0.lock(normalized, owner: owner) }
        return SimulatedFileLock(fileSystem: self, path: normalized, token: token)
    }

    // MARK: Test helpers

    /// The current bytes of the file at `path` (what a read sees), or `nil` when there is no such file.
    /// Works after a crash too.
    public func bytes(of path: String) -> [UInt8]? {
        state.withLock { state in state.fileInode(Self.normalize(path)).map { state.inodes[$0]!.current } }
    }

    /// Replaces the file's bytes and its durable image with `bytes`, creating the file (and its parent
    /// directories) if needed and making its name durable. Not counted; works after a crash too; does
    /// nothing when `path` names a directory. For tests that corrupt or plant files.
    public func setBytes(_ bytes: [UInt8], of path: String) {
        state.withLock { $0.setBytes(bytes, of: Self.normalize(path)) }
    }

    /// The sorted names of the regular files currently in `directory` (no subdirectories); empty when the
    /// directory does not exist. Works after a crash too.
    public func fileNames(in directory: String) -> [String] {
        state.withLock { $0.directories[Self.normalize(directory)]?.current.keys.sorted() ?? [] }
    }

    // MARK: Paths

    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." {
            if part == ".." { _ = parts.popLast() } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The parent directory and the last component of a normalised path other than `/`.
    static func split(_ path: String) -> (parent: String, name: String)? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        let parent = slash == path.startIndex ? "/" : String(path[..<slash])
        return (parent, String(path[path.index(after: slash)...]))
    }
}
