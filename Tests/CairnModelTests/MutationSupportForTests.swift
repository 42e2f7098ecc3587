import Testing
@testable import CairnModel

/// Shorthands shared by the mutation suites. Suites adopt the protocol, so the helpers are members and cannot
/// collide with other suites' top-level helpers.
protocol MutationTesting {}

extension MutationTesting {
    /// The document every single-document test writes.
    var key: DocumentKey { DocumentKey(path: ResourcePath(segments: ["rooms", "r1"])) }
    var otherKey: DocumentKey { DocumentKey(path: ResourcePath(segments: ["rooms", "r2"])) }

    /// The local write time of the tests' mutations.
    var writeTime: Timestamp { Timestamp(seconds: 1_700_000_000, nanoseconds: 5) }

    func version(_ seconds: Int64) -> Timestamp { Timestamp(seconds: seconds, nanoseconds: 0) }

    /// A field path from a dotted string (no validation: test paths are plain).
    func field(_ dotted: String) -> FieldPath {
        FieldPath(segments: dotted.split(separator: ".").map(String.init))
    }

    func mask(_ dotted: String...) -> FieldMask { FieldMask(dotted.map(field)) }

    func object(_ fields: [String: Value]) -> ObjectValue { ObjectValue(fields) }

    func map(_ fields: [String: Value]) -> Value { .map(ObjectValue(fields)) }

    /// A synced document that exists at `version` seconds.
    func found(_ fields: [String: Value], version seconds: Int64 = 7, key: DocumentKey? = nil) -> Document {
        Document(key: key ?? self.key, state: .found, version: version(seconds), data: ObjectValue(fields))
    }

    /// A synced tombstone at `version` seconds.
    func tombstone(version seconds: Int64 = 7) -> Document {
        Document(key: key, state: .noDocument, version: version(seconds))
    }

    func transform(_ dotted: String, _ operation: TransformOperation) -> FieldTransform {
        FieldTransform(field: field(dotted), operation: operation)
    }

    /// Applies `mutation` to the local view and returns the document and the mask.
    func local(
        _ mutation: Mutation, to document: Document?, previousMask: FieldMask? = FieldMask()
    ) -> (document: Document?, mask: FieldMask?) {
        var document = document
        let mask = mutation.applyToLocalView(&document, previousMask: previousMask, localWriteTime: writeTime)
        return (document, mask)
    }

    /// Applies an acknowledged `mutation` to the remote copy.
    func remote(_ mutation: Mutation, to document: Document?, result: MutationResult) -> Document? {
        var document = document
        mutation.applyToRemoteDocument(&document, result: result)
        return document
    }

    /// Runs `body`, which must throw an `invalidArgument` whose message is exactly `message`.
    func expectError(
        _ message: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Mutation
    ) {
        do {
            let mutation = try body()
            Issue.record("expected invalidArgument \"\(message)\", got \(mutation)", sourceLocation: sourceLocation)
        } catch let error as ModelError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message == message, sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a ModelError, got \(error)", sourceLocation: sourceLocation)
        }
    }
}
