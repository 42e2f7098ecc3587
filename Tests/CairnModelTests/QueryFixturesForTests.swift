import Testing
@testable import CairnModel

/// Short builders for the query suites. Suites adopt the protocol so the helpers resolve as members and never
/// clash with the global helpers of other suites.
protocol QueryFixtures {}

extension QueryFixtures {
    /// The database every test reference lives in.
    var database: DatabaseID { DatabaseID(projectID: "p") }

    /// A field path from a dotted string (`"a.b"`), or `__name__`.
    func field(_ dotted: String) -> FieldPath {
        FieldPath(segments: dotted.split(separator: ".").map(String.init))
    }

    func key(_ path: String) -> DocumentKey {
        DocumentKey(path: ResourcePath(segments: path.split(separator: "/").map(String.init)))
    }

    /// A reference value to the document at `path`.
    func ref(_ path: String) -> Value { .reference(database, key(path)) }

    /// An existing document with top-level fields.
    func doc(_ path: String, _ fields: [String: Value] = [:]) -> Document {
        Document(key: key(path), state: .found, version: Timestamp(seconds: 1, nanoseconds: 0), data: ObjectValue(fields))
    }

    /// A field filter as a `Filter`.
    func filter(_ dotted: String, _ op: FilterOperator, _ value: Value) -> Filter {
        .field(FieldFilter(field(dotted), op, value))
    }

    func collection(_ path: String) -> Query {
        Query(path: ResourcePath(segments: path.split(separator: "/").map(String.init)))
    }

    func asc(_ dotted: String) -> OrderBy { OrderBy(field(dotted)) }
    func desc(_ dotted: String) -> OrderBy { OrderBy(field(dotted), descending: true) }

    /// Expects `body` to throw `invalidArgument` whose message contains `fragment`.
    func expectInvalid(
        _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            Issue.record("expected invalidArgument containing \"\(fragment)\"", sourceLocation: sourceLocation)
        } catch let error as ModelError {
            #expect(error.code == .invalidArgument, sourceLocation: sourceLocation)
            #expect(error.message.contains(fragment), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a ModelError, got \(error)", sourceLocation: sourceLocation)
        }
    }
}
