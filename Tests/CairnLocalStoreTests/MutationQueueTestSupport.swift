import CairnModel
import CairnTestSupport
import SegmentLog
import Testing
@testable import CairnLocalStore

/// Where a test's cache lives.
enum StoreMode: String, CaseIterable, CustomTestStringConvertible {
    case memory, persistent
    var testDescription: String { rawValue }
}

/// A cache under test that can restart (persistent mode: close and reopen on the same simulated disk; memory
/// mode: nothing survives, so a restart is not offered).
final class RestartableStore {
    let fs: SimulatedFileSystem?
    private(set) var store: LocalStore

    init(_ mode: StoreMode) throws {
        switch mode {
        case .memory:
            fs = nil
            store = keepingMemoryStore()
        case .persistent:
            let fs = SimulatedFileSystem()
            self.fs = fs
            store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
        }
    }

    /// Closes the cache and opens it again from its log (the current user is back to the default).
    func restart() throws {
        guard let fs else { preconditionFailure("a memory cache cannot restart") }
        try store.close()
        store = try LocalStore.open(at: "/cache", configuration: smallLog(fs))
    }
}

/// Shorthands for the outbox suites, as members so they cannot clash with other suites' helpers.
protocol MutationQueueTesting {}

extension MutationQueueTesting {
    func path(_ dotted: String) -> FieldPath { FieldPath(segments: dotted.split(separator: ".").map(String.init)) }

    func object(_ fields: [String: Value]) -> ObjectValue { ObjectValue(fields) }

    /// `setData(fields)`.
    func setData(_ document: String, _ fields: [String: Value], transforms: [FieldTransform] = []) -> Mutation {
        .set(key(document), value: ObjectValue(fields), transforms: transforms)
    }

    /// `updateData(fields)` with dotted paths: fails locally when the document does not exist.
    func updateData(_ document: String, _ fields: [String: Value], transforms: [FieldTransform] = []) -> Mutation {
        var value = ObjectValue()
        for (dotted, field) in fields { value.set(field, at: path(dotted)) }
        return .patch(key(document), value: value, mask: FieldMask(fields.keys.map(path)), transforms: transforms)
    }

    /// `setData(fields, merge: true)`: writes only the given fields, creating the document when missing.
    func mergeData(_ document: String, _ fields: [String: Value], transforms: [FieldTransform] = []) -> Mutation {
        let value = ObjectValue(fields)
        return .patch(key(document), value: value, mask: FieldMask(leavesOf: value), precondition: .none, transforms: transforms)
    }

    func increment(_ dotted: String, by operand: Value) -> FieldTransform {
        FieldTransform(field: path(dotted), operation: .increment(operand))
    }

    func serverTimestamp(_ dotted: String) -> FieldTransform {
        FieldTransform(field: path(dotted), operation: .serverTimestamp)
    }

    /// The server's acknowledgement of `batch` committed at `seconds`: every write at the commit version,
    /// server timestamps at the commit time, increments with `incrementResult`, array transforms null.
    func acknowledgement(_ batch: MutationBatch, at seconds: Int64, incrementResult: Value = .integer(0)) throws -> MutationBatchResult {
        let results = batch.mutations.map { mutation in
            MutationResult(version: time(seconds), transformResults: mutation.fieldTransforms.map { transform in
                switch transform.operation {
                case .serverTimestamp: .timestamp(time(seconds))
                case .increment: incrementResult
                case .arrayUnion, .arrayRemove: .null
                }
            })
        }
        return try MutationBatchResult(batch: batch, commitVersion: time(seconds), mutationResults: results)
    }

    /// Runs `body`, which must throw a `LocalStoreError` with `code`.
    func expectError(_ code: LocalStoreError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Any) {
        do {
            let result = try body()
            Issue.record("expected \(code), got \(result)", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? LocalStoreError)?.code == code, "\(error)", sourceLocation: sourceLocation)
        }
    }

    /// Everything a test compares about a document, in one line (`nil` for an unknown document).
    func describe(_ document: Document?) -> String {
        guard let document else { return "nil" }
        let flags = (document.hasLocalMutations ? " local" : "") + (document.hasCommittedMutations ? " committed" : "")
        return "\(document.key) \(document.state) v\(document.version.seconds).\(document.version.nanoseconds) "
            + "r\(document.readTime.seconds) \(Value.map(document.data).canonicalString)\(flags)"
    }
}
