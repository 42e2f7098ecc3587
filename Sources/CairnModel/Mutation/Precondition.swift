/// A condition the document must meet for a mutation to apply, checked by the server on commit and by the
/// client when it applies the mutation to its local view (`Precondition` in `model/precondition.cc`).
///
/// `update` writes use ``exists(_:)`` with `true` (the document must exist); `create`-style writes use `false`;
/// transactions use ``updateTime(_:)`` to verify that a read document did not change.
///
/// ```swift
/// let mustExist = Precondition.exists(true)
/// mustExist.isValid(for: nil)           // false: the cache knows nothing of the document
/// mustExist.isValid(for: foundDocument) // true
/// ```
package enum Precondition: Sendable, Hashable {
    /// No condition: the mutation always applies.
    case none
    /// The document must exist (`true`) or must not exist (`false`).
    case exists(Bool)
    /// The document must exist at exactly this version (the server's update time).
    case updateTime(Timestamp)

    /// Whether `document` meets the condition. `nil` stands for a document the cache knows nothing about; like
    /// a tombstone (`.noDocument`) and an `.unknown` document, it does not exist for this check.
    ///
    /// ```swift
    /// Precondition.exists(false).isValid(for: nil)                                   // true
    /// Precondition.updateTime(v).isValid(for: Document(key: k, state: .found, version: v)) // true
    /// ```
    package func isValid(for document: Document?) -> Bool {
        let exists = document?.state == .found
        switch self {
        case .none:
            return true
        case .exists(let mustExist):
            return mustExist == exists
        case .updateTime(let version):
            return exists && document?.version == version
        }
    }

    /// Whether this is ``none``.
    package var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}

extension Precondition: CustomStringConvertible {
    package var description: String {
        switch self {
        case .none: "none"
        case .exists(let exists): "exists(\(exists))"
        case .updateTime(let version): "updateTime(\(version.seconds)s \(version.nanoseconds)ns)"
        }
    }
}
