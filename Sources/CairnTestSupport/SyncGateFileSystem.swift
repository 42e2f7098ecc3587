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
public final class SyncGateFileSystem: ForwardingFileSystem, @unchecked Sendable {
    /// How long a held sync waits at most.
    public let maxHold: TimeInterval
    private let condition = NSCondition()
    private var held = false
    private var waiting = 0
    private var completed = 0
    private var timedOut = 0

    public init(_ base: any FileSystem, maxHold: TimeInterval = 20) {
        self.maxHold = maxHold
        super.init(base: base)
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

    override public func open(_ path: String, _ mode: FileOpenMode) throws -> any StorageFile {
        GatedFile(try base.open(path, mode), gate: self)
    }
}

/// A file of a ``SyncGateFileSystem``: its sync waits at the gate.
final class GatedFile: ForwardingStorageFile, @unchecked Sendable {
    let gate: SyncGateFileSystem

    init(_ file: any StorageFile, gate: SyncGateFileSystem) {
        self.gate = gate
        super.init(base: file)
    }

    override func sync() throws { try gate.gatedSync { try base.sync() } }
}
