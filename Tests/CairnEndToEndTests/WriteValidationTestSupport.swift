import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import Testing

/// The error a write reports at once, or nil when it was accepted: offline an accepted write never completes,
/// and a refused one completes before a cache read queued after it answers.
func writeOutcome(
    _ env: EndToEndEnvironment, _ write: (@escaping @Sendable (Error?) -> Void) -> Void
) async throws -> Error? {
    let inbox = Inbox<UncheckedBox<Error?>>()
    write { inbox.put(UncheckedBox($0)) }
    _ = try await env.db.collection("probe").getDocuments(source: .cache)
    return inbox.pending.first?.value ?? nil
}

/// Expects `error` to be `invalidArgument` with a message containing every phrase.
func expectInvalidArgument(
    _ error: (any Error)?, _ phrases: String..., sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let error = error as? FirestoreErrorCode else {
        Issue.record("expected invalidArgument \(phrases), got \(String(describing: error))", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == .invalidArgument, "\(error)", sourceLocation: sourceLocation)
    for phrase in phrases {
        #expect(error.message.contains(phrase), "message: \(error.message)", sourceLocation: sourceLocation)
    }
}
