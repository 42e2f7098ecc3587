/// A server-side transformation of one field: the `FieldValue` sentinels `serverTimestamp()`, `increment(_:)`,
/// `arrayUnion(_:)` and `arrayRemove(_:)` (`TransformOperation` in `model/transform_operation.cc` and
/// `model/transform_operation.ts`).
///
/// The server computes the real result on commit. Until then the client shows an estimate, computed by
/// ``applyToLocalView(previous:localWriteTime:)`` from the field's current local value; when the write is
/// acknowledged, ``applyToRemoteDocument(previous:transformResult:)`` turns the server's result into the value.
///
/// ```swift
/// let bump = TransformOperation.increment(.integer(1))
/// bump.applyToLocalView(previous: .integer(41), localWriteTime: now)   // .integer(42)
/// bump.applyToLocalView(previous: .string("x"), localWriteTime: now)   // .integer(1): not a number counts as 0
/// ```
package enum TransformOperation: Sendable, Hashable {
    /// The commit time of the write. Locally a pending ``Value/serverTimestamp(localWriteTime:previous:)``.
    case serverTimestamp
    /// Adds the operand to the field's number. The operand must be an integer or a double: ``MutationBuilder``
    /// guarantees it, and a decoder of stored mutations must reject anything else as damaged data.
    case increment(Value)
    /// Appends each element not already in the field's array (Firestore equality: `1` and `1.0` differ).
    case arrayUnion([Value])
    /// Removes every element equal to one of these from the field's array.
    case arrayRemove([Value])

    /// The field's value after this transform, as the client estimates it before the server answers.
    ///
    /// - `serverTimestamp`: a pending server timestamp remembering `previous` for
    ///   `ServerTimestampBehavior.previous`; when `previous` is itself pending, its own previous value is kept
    ///   instead, so chains never nest (`EncodeServerTimestamp` in `model/server_timestamp_util.cc`).
    /// - `increment`: the base is `previous` when it is a number and integer 0 otherwise; integer + integer stays
    ///   an integer, saturating at `Int64.max` / `Int64.min` (`SafeIncrement`); any double makes a double.
    /// - `arrayUnion` / `arrayRemove`: a `previous` that is not an array counts as the empty array.
    ///
    /// ```swift
    /// TransformOperation.increment(.integer(1)).applyToLocalView(previous: .integer(.max), localWriteTime: t)
    /// // .integer(.max)
    /// TransformOperation.arrayUnion([.integer(1), .integer(1)]).applyToLocalView(previous: nil, localWriteTime: t)
    /// // .array([.integer(1)])
    /// ```
    package func applyToLocalView(previous: Value?, localWriteTime: Timestamp) -> Value {
        switch self {
        case .serverTimestamp:
            if case .serverTimestamp(_, let earlier) = previous {
                return .serverTimestamp(localWriteTime: localWriteTime, previous: earlier)
            }
            return .serverTimestamp(localWriteTime: localWriteTime, previous: previous)
        case .increment(let operand):
            return Self.add(operand, to: computeBaseValue(previous) ?? .integer(0))
        case .arrayUnion, .arrayRemove:
            return applyArrayTransform(to: previous)
        }
    }

    /// The field's value after the server acknowledged the write that carried this transform.
    ///
    /// `serverTimestamp` and `increment` take the server's `transformResult`. For array transforms the server
    /// sends no useful result (null), so the transform is applied again to `previous`, the field's value in the
    /// acknowledged document — exactly what the server computed from the same value.
    ///
    /// ```swift
    /// TransformOperation.serverTimestamp.applyToRemoteDocument(previous: nil, transformResult: .timestamp(t))
    /// // .timestamp(t)
    /// ```
    package func applyToRemoteDocument(previous: Value?, transformResult: Value) -> Value {
        switch self {
        case .serverTimestamp, .increment:
            return transformResult
        case .arrayUnion, .arrayRemove:
            return applyArrayTransform(to: previous)
        }
    }

    /// The value to pin before applying a transform that is not idempotent, or `nil` when the transform needs
    /// none (`ComputeBaseValue`). Only `increment` needs one: `current` when it is a number, else integer 0.
    ///
    /// The local store saves these values as the batch's base mutations, so that re-applying the batch on a
    /// document that already includes the increment (an echo from the server) does not count it twice.
    ///
    /// ```swift
    /// TransformOperation.increment(.integer(1)).computeBaseValue(.double(2.5))   // .double(2.5)
    /// TransformOperation.increment(.integer(1)).computeBaseValue(nil)            // .integer(0)
    /// TransformOperation.serverTimestamp.computeBaseValue(.integer(3))           // nil
    /// ```
    package func computeBaseValue(_ current: Value?) -> Value? {
        switch self {
        case .increment:
            if let current, current.isNumber { return current }
            return .integer(0)
        case .serverTimestamp, .arrayUnion, .arrayRemove:
            return nil
        }
    }

    /// `base + operand` with the SDKs' typing: integer when both are integers (saturating), double otherwise.
    private static func add(_ operand: Value, to base: Value) -> Value {
        switch (base, operand) {
        case (.integer(let x), .integer(let y)):
            let (sum, overflow) = x.addingReportingOverflow(y)
            if overflow { return .integer(y > 0 ? .max : .min) }
            return .integer(sum)
        default:
            return .double(asDouble(base) + asDouble(operand))
        }
    }

    private static func asDouble(_ number: Value) -> Double {
        switch number {
        case .integer(let integer): Double(integer)
        case .double(let double): double
        default: preconditionFailure("an increment operand or base is always a number, got \(number)")
        }
    }

    private func applyArrayTransform(to previous: Value?) -> Value {
        var elements = previous?.arrayElements ?? []
        switch self {
        case .arrayUnion(let additions):
            for element in additions where !elements.contains(element) {
                elements.append(element)
            }
        case .arrayRemove(let removals):
            elements.removeAll { removals.contains($0) }
        case .serverTimestamp, .increment:
            preconditionFailure("not an array transform: \(self)")
        }
        return .array(elements)
    }
}

/// A transform of the field at `field`, as a set or patch mutation carries it (`FieldTransform` in
/// `model/field_transform.h`).
///
/// ```swift
/// FieldTransform(field: FieldPath(segments: ["visits"]), operation: .increment(.integer(1)))
/// ```
package struct FieldTransform: Sendable, Hashable {
    package var field: FieldPath
    package var operation: TransformOperation

    package init(field: FieldPath, operation: TransformOperation) {
        self.field = field
        self.operation = operation
    }
}
