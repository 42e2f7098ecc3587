import Foundation
import SegmentLog

/// A ``FileSystem`` over another whose file syncs wait while the gate is held: a test holds the syncs, checks
/// what goes on meanwhile (writes, commits, snapshots), then releases them. Every other call passes straight
/// through. A held sync gives up waiting after `maxHold` seconds, so a caller that wrongly waits for a sync
/// makes its test fail late instead of hang; ``heldTooLong`` counts those.
///
/// ```swift
/// let fs = SyncGateFileSystem(SimulatedFileSystem())
/// fs.hold()
/// try log.commit(batch)                  // returns at once: nothing waits for the disk
/// #expect(fs.syncsCompleted == 0)
/// fs.release()
/// ```
public final class SyncGateFileSystem: FileSystem, @unchecked Sendable {
    /// The file system underneath.
    public let base: any FileSystem
    /// How long a held sync waits at most.
    public let maxHold: TimeInterval
    private let condition = NSCondition()
    private var held = false
    private var waiting = 0
    private var completed = 0
    private var timedOut = 0

    public init(_ base: any FileSystem, maxHold: TimeInterval = 20) {
        self.base = base
        self.maxHold = maxHold
    }

    /// From now on file syncs wait until ``release()``.
    public func hold() {
        condition.withLock { held = true }
    }

    /// Lets the waiting syncs and every later one run.
    public func release() {
        condition.withLock {
            held = false
            condition.broadcast()
        }
    }

    /// File syncs waiting at the gate now.
    public var syncsWaiting: Int { condition.withLock { waiting } }
    /// File syncs that ran (and returned, successfully or not).
    public var syncsCompleted: Int { condition.withLock { completed } }
    /// Held syncs that ran because `maxHold` passed.
    public var heldTooLong: Int { condition.withLock { timedOut } }

    /// Waits until at least one sync waits at the gate; false when none did within `seconds`.
    public func awaitWaitingSync(seconds: TimeInterval = 60) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return condition.withLock {
            while waiting == 0 {
                if !condition.wait(until: deadline) { return waiting > 0 }
            }
            return true
        }
    }

    func gatedSync(_ sync: () throws -> Void) throws {
        condition.withLock {
            let deadline = Date(timeIntervalSinceNow: maxHold)
            waiting += 1
            condition.broadcast()
            while held {
                if !condition.wait(until: deadline) {
                    timedOut += 1
                    break
                }
            }
            waiting -= 1
        }
        defer { condition.withLock { completed += 1 } }
        try sync()
    }

    public func createDirectory(at path: String) throws { try base.createDirectory(at: path) }
    public func contentsOfDirectory(at path: String) throws -> [String] { try base.contentsOfDirectory(at: path) }
    public func exists(_ path: String) throws -> Bool { try base.exists(path) }
    public func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        GatedFile(try base.open(path, mode), gate: self)
    }
    public func removeFile(at path: String) throws { try base.removeFile(at: path) }
    public func rename(_ source: String, to target: String) throws { try base.rename(source, to: target) }
    public func syncDirectory(at path: String) throws { try base.syncDirectory(at: path) }
    public func lock(_ path: String, owner: String) throws -> any FileLock { try base.lock(path, owner: owner) }
}

/// A file of a ``SyncGateFileSystem``: its sync waits at the gate.
final class GatedFile: StorageFile, @unchecked Sendable {
    let file: any StorageFile
    let gate: SyncGateFileSystem

    init(_ file: any StorageFile, gate: SyncGateFileSystem) {
        self.file = file
        self.gate = gate
    }

    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        try file.read(into: buffer, at: offset)
    }
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws { try file.write(bytes, at: offset) }
    func size() throws -> UInt64 { try file.size() }
    func truncate(to size: UInt64) throws { try file.truncate(to: size) }
    func sync() throws { try gate.gatedSync { try file.sync() } }
    func close() throws { try file.close() }
}
