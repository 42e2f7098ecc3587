import Foundation

/// The `async` forms of the writes (as Swift imports Firebase's completion blocks): they return when the server
/// accepted the write and throw its error when it rejected it. Offline they wait until the write is sent and
/// acknowledged.
extension DatabaseReference {
    public func setValue(_ value: Any?) async throws -> DatabaseReference {
        nonisolated(unsafe) let value = value
        return try await completion { setValue(value, withCompletionBlock: $0) }
    }

    public func setValue(_ value: Any?, andPriority priority: Any?) async throws -> DatabaseReference {
        nonisolated(unsafe) let value = value, priority = priority
        return try await completion { setValue(value, andPriority: priority, withCompletionBlock: $0) }
    }

    public func removeValue() async throws -> DatabaseReference {
        try await completion { removeValue(completionBlock: $0) }
    }

    public func setPriority(_ priority: Any?) async throws -> DatabaseReference {
        nonisolated(unsafe) let priority = priority
        return try await completion { setPriority(priority, withCompletionBlock: $0) }
    }

    public func updateChildValues(_ values: [AnyHashable: Any]) async throws -> DatabaseReference {
        nonisolated(unsafe) let values = values
        return try await completion { updateChildValues(values, withCompletionBlock: $0) }
    }

    private func completion(_ start: (@escaping (Error?, DatabaseReference) -> Void) -> Void) async throws -> DatabaseReference {
        try await withCheckedThrowingContinuation { continuation in
            start { error, ref in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: ref) }
            }
        }
    }
}
