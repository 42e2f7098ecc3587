import CairnModel

/// A path to a field: literal field names, so a `.` in a name is just a character. String arguments of the API
/// (`whereField("address.city", ...)`) are dotted paths instead.
///
/// ```swift
/// db.collection("products").whereField(FieldPath(["prices", "1.5kg"]), isLessThan: 10)
/// db.collection("cities").order(by: FieldPath.documentID())
/// ```
///
/// An invalid path (no names, or an empty name) can be made, as Firebase's initializer cannot report it; every
/// call that uses it reports `invalidArgument` with Firebase's message.
public final class FieldPath: Sendable, Hashable, CustomStringConvertible {
    let parsed: Result<CairnModel.FieldPath, FirestoreErrorCode>

    /// A path of literal field names.
    public init(_ fieldNames: [String]) {
        do throws(ModelError) {
            parsed = .success(try CairnModel.FieldPath(fieldNames))
        } catch {
            parsed = .failure(FirestoreErrorCode(error))
        }
    }

    init(model: CairnModel.FieldPath) {
        parsed = .success(model)
    }

    /// The document's ID, for queries on document IDs (`__name__`).
    public static func documentID() -> FieldPath { FieldPath(model: .documentKey) }

    /// The path from a user's dotted string (`"a.b"`), with Firebase's validation.
    static func dotted(_ string: String) -> Result<CairnModel.FieldPath, FirestoreErrorCode> {
        do throws(ModelError) {
            return .success(try CairnModel.FieldPath(parsingDotted: string))
        } catch {
            return .failure(FirestoreErrorCode(error))
        }
    }

    public static func == (a: FieldPath, b: FieldPath) -> Bool {
        switch (a.parsed, b.parsed) {
        case (.success(let x), .success(let y)): x == y
        case (.failure(let x), .failure(let y)): x == y
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch parsed {
        case .success(let path): hasher.combine(path)
        case .failure(let error): hasher.combine(error)
        }
    }

    public var description: String {
        switch parsed {
        case .success(let path): path.canonicalString
        case .failure(let error): "<invalid FieldPath: \(error.message)>"
        }
    }
}

extension FirestoreErrorCode {
    /// The API error for a data-model error (same code name, same message).
    init(_ error: ModelError) {
        let code: Code =
            switch error.code {
            case .invalidArgument: .invalidArgument
            case .dataLoss: .dataLoss
            case .failedPrecondition: .failedPrecondition
            }
        self.init(code, error.message)
    }
}
