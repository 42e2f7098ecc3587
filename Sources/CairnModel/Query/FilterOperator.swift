/// The comparison a ``FieldFilter`` applies between a document's field and the filter's value.
///
/// The raw value is the operator's canonical string, the one that appears in query canonical ids
/// (``Query/canonicalID``) and in the Firebase SDKs' `Operator` (JS `core/filter.ts`):
///
/// | case | raw value | matches a document whose field `f`… |
/// |---|---|---|
/// | `lessThan` | `<` | sorts before the value, same ``TypeOrder`` |
/// | `lessThanOrEqual` | `<=` | sorts before or equal, same ``TypeOrder`` |
/// | `equal` | `==` | compares equal, same ``TypeOrder`` (`1 == 1.0`) |
/// | `notEqual` | `!=` | exists, is not null, and does not compare equal (any type) |
/// | `greaterThanOrEqual` | `>=` | sorts after or equal, same ``TypeOrder`` |
/// | `greaterThan` | `>` | sorts after, same ``TypeOrder`` |
/// | `arrayContains` | `array-contains` | is an array with an element `==` the value |
/// | `arrayContainsAny` | `array-contains-any` | is an array sharing an element with the value array |
/// | `in` | `in` | is `==` one of the value array's elements |
/// | `notIn` | `not-in` | exists, is not null, and is `==` none of the elements |
///
/// ```swift
/// FilterOperator.arrayContainsAny.rawValue   // "array-contains-any"
/// FilterOperator.notIn.isInequality          // true: it adds an implicit order by
/// ```
package enum FilterOperator: String, Sendable, Hashable, CaseIterable {
    case lessThan = "<"
    case lessThanOrEqual = "<="
    case equal = "=="
    case notEqual = "!="
    case greaterThanOrEqual = ">="
    case greaterThan = ">"
    case arrayContains = "array-contains"
    case arrayContainsAny = "array-contains-any"
    case `in` = "in"
    case notIn = "not-in"

    /// True for the operators that make a field an *inequality field*: `<`, `<=`, `>`, `>=`, `!=` and
    /// `not-in` (SDK `FieldFilter::IsInequality`). Inequality fields get an implicit order by
    /// (see ``Query/normalizedOrderBy``).
    package var isInequality: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: true
        case .equal, .arrayContains, .arrayContainsAny, .in: false
        }
    }

    /// True for `<`, `<=`, `>` and `>=`: the operators that compare within one ``TypeOrder``.
    package var isRange: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual: true
        default: false
        }
    }

    /// True for `array-contains` and `array-contains-any`, which look inside an array field
    /// (SDK `IsArrayOperator`).
    package var isArrayOperator: Bool { self == .arrayContains || self == .arrayContainsAny }

    /// True for `in`, `not-in` and `array-contains-any`, whose value is a non-empty array of alternatives
    /// (SDK `IsDisjunctiveOperator`).
    package var takesArrayOfValues: Bool { self == .in || self == .notIn || self == .arrayContainsAny }

    /// The most values the backend accepts in this operator's array: 10 for `not-in`, 30 for `in` and
    /// `array-contains-any`; `nil` for the other operators. Measured on the Cloud Firestore emulator
    /// ("'NOT_IN' supports up to 10 comparison values.", "'IN' supports up to 30 comparison values.").
    package var maximumValueCount: Int? {
        switch self {
        case .notIn: 10
        case .in, .arrayContainsAny: 30
        default: nil
        }
    }

    /// The name error messages use, as the iOS SDK's `Query::Describe` spells it (`notIn`, `arrayContains`):
    /// the label of the matching `whereField(_:…)` argument.
    package var apiName: String {
        switch self {
        case .lessThan: "lessThan"
        case .lessThanOrEqual: "lessThanOrEqual"
        case .equal: "equal"
        case .notEqual: "notEqual"
        case .greaterThanOrEqual: "greaterThanOrEqual"
        case .greaterThan: "greaterThan"
        case .arrayContains: "arrayContains"
        case .arrayContainsAny: "arrayContainsAny"
        case .in: "in"
        case .notIn: "notIn"
        }
    }

    /// Whether a comparison result (`Value.compare(field, value)`: -1, 0 or 1) satisfies this operator.
    /// Only meaningful for the comparison operators (`<` … `>` and `!=`); the array and membership operators
    /// never match through a comparison.
    func accepts(comparison: Int) -> Bool {
        switch self {
        case .lessThan: comparison < 0
        case .lessThanOrEqual: comparison <= 0
        case .equal: comparison == 0
        case .notEqual: comparison != 0
        case .greaterThanOrEqual: comparison >= 0
        case .greaterThan: comparison > 0
        case .arrayContains, .arrayContainsAny, .in, .notIn: false
        }
    }
}
