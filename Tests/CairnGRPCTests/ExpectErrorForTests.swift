import CairnCore
import Cairn
import Testing

/// Expects `body` to throw a ``FirestoreErrorCode`` with `code` (and `text` in its message, when given).
func expectFirestoreError<T>(
    _ code: FirestoreErrorCode.Code, containing text: String? = nil, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    do {
        let value = try body()
        Issue.record("expected \(code), got \(value)", sourceLocation: sourceLocation)
    } catch {
        check(error, code, text, comment, sourceLocation)
    }
}

/// The async form of ``expectFirestoreError(_:containing:_:sourceLocation:_:)``.
func expectFirestoreError<T>(
    _ code: FirestoreErrorCode.Code, containing text: String? = nil, _ comment: Comment? = nil,
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async {
    do {
        let value = try await body()
        Issue.record("expected \(code), got \(value)", sourceLocation: sourceLocation)
    } catch {
        check(error, code, text, comment, sourceLocation)
    }
}

private func check(
    _ error: any Error, _ code: FirestoreErrorCode.Code, _ text: String?, _ comment: Comment?,
    _ sourceLocation: SourceLocation
) {
    guard let error = error as? FirestoreErrorCode else {
        Issue.record("expected a FirestoreErrorCode \(code), got \(error)", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, comment, sourceLocation: sourceLocation)
    if let text {
        #expect(error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
    }
}
