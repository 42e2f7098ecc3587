/// Applying an acknowledged mutation to the server's version of its document (`ApplyToRemoteDocument` in
/// `set_mutation.cc`, `patch_mutation.cc`, `delete_mutation.cc`; `mutation.ts`).
extension Mutation {
    /// Applies this mutation, which the server accepted with `result`, to the cache's copy of the server's
    /// document. The document ends at `result.version` with `hasCommittedMutations` set, until the watch stream
    /// delivers the server's own copy.
    ///
    /// The server accepted the write, so its precondition held there. A set and a delete apply regardless of
    /// what the cache holds. A patch whose precondition fails against the cached copy proves that copy stale:
    /// the document becomes `.unknown` at `result.version` (its contents are not known) instead of a guess.
    /// Transformed fields take the server's results (``TransformOperation/applyToRemoteDocument(previous:transformResult:)``).
    /// A verify changes nothing.
    ///
    /// - Precondition: `result.transformResults` has one value per field transform (``MutationBatchResult``
    ///   checks this when it is created) and `document`, when not `nil`, has this mutation's key.
    ///
    /// ```swift
    /// var document: Document? = cachedCopy
    /// mutation.applyToRemoteDocument(&document, result: MutationResult(version: commitTime, transformResults: []))
    /// // document!.version == commitTime; document!.hasCommittedMutations
    /// ```
    package func applyToRemoteDocument(_ document: inout Document?, result: MutationResult) {
        if let document {
            Swift.precondition(document.key == key, "mutation for \(key) applied to document \(document.key)")
        }
        Swift.precondition(
            result.transformResults.count == fieldTransforms.count,
            "\(result.transformResults.count) transform results for \(fieldTransforms.count) transforms of \(self)")

        var updated = document ?? .placeholder(for: key)
        switch kind {
        case .set(let value):
            var data = value
            applyServerTransforms(to: &data, results: result.transformResults)
            updated.convertToFoundDocument(version: result.version, data: data)
            updated.setHasCommittedMutations()

        case .patch(let value, let mask):
            guard precondition.isValid(for: document) else {
                updated.convertToUnknownDocument(version: result.version)
                document = updated
                return
            }
            var data = updated.data
            data.applyPatch(value, mask: mask)
            applyServerTransforms(to: &data, results: result.transformResults)
            updated.convertToFoundDocument(version: result.version, data: data)
            updated.setHasCommittedMutations()

        case .delete:
            updated.convertToNoDocument(version: result.version)
            updated.setHasCommittedMutations()

        case .verify:
            return
        }
        document = updated
    }
}
