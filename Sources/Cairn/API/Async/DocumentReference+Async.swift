import Foundation

/// The `async` forms of ``DocumentReference``'s calls, as Firebase's Swift API has them. Each resumes when its
/// completion form would run, and throws the error it would report.
///
/// ```swift
/// try await ref.setData(["name": "Ada"])
/// try await ref.updateData(["visits": FieldValue.increment(Int64(1))])
/// let snapshot = try await ref.getDocument(source: .cache)
/// try await ref.delete()
/// ```
extension DocumentReference {
    public func setData(_ documentData: [String: Any]) async throws {
        try await awaitCompletion { setData(documentData, completion: $0) }
    }

    public func setData(_ documentData: [String: Any], merge: Bool) async throws {
        try await awaitCompletion { setData(documentData, merge: merge, completion: $0) }
    }

    public func setData(_ documentData: [String: Any], mergeFields: [Any]) async throws {
        try await awaitCompletion { setData(documentData, mergeFields: mergeFields, completion: $0) }
    }

    public func updateData(_ fields: [AnyHashable: Any]) async throws {
        try await awaitCompletion { updateData(fields, completion: $0) }
    }

    public func delete() async throws {
        try await awaitCompletion { delete(completion: $0) }
    }

    public func getDocument() async throws -> DocumentSnapshot {
        try await getDocument(source: .default)
    }

    public func getDocument(source: FirestoreSource) async throws -> DocumentSnapshot {
        try await awaitValue { getDocument(source: source, completion: $0) }
    }
}

/// Runs a completion-handler call and waits for its completion: resumes, or throws the error it reported.
func awaitCompletion(_ call: (@escaping (Error?) -> Void) -> Void) async throws {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
        call { error in
            if let error {
                continuation.resume(throwing: error)
            } else {
                continuation.resume()
            }
        }
    }
}

/// Runs a `(value?, error?)` completion-handler call and returns its value or throws its error.
func awaitValue<Value: Sendable>(_ call: (@escaping (Value?, Error?) -> Void) -> Void) async throws -> Value {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
        call { value, error in
            if let value {
                continuation.resume(returning: value)
            } else {
                continuation.resume(throwing: error ?? FirestoreErrorCode(.internal, "A call completed with neither a value nor an error."))
            }
        }
    }
}
