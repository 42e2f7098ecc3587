import CairnModel

/// Cursors: where in the query's order the results start or end, given as values of the `order(by:)` fields
/// (in order) or as a document snapshot (its values for every field of the query's order, then its ID).
///
/// ```swift
/// let page2 = db.collection("cities").order(by: "population").start(afterDocument: lastOfPage1).limit(to: 25)
/// let range = db.collection("cities").order(by: "name").start(at: ["A"]).end(before: ["B"])
/// ```
extension Query {
    /// Starts at the documents whose order-by values are `fieldValues` (inclusive).
    public func start(at fieldValues: [Any]) -> Query { cursor(fieldValues, start: true, inclusive: true) }

    /// Starts after the documents whose order-by values are `fieldValues`.
    public func start(after fieldValues: [Any]) -> Query { cursor(fieldValues, start: true, inclusive: false) }

    /// Ends at the documents whose order-by values are `fieldValues` (inclusive).
    public func end(at fieldValues: [Any]) -> Query { cursor(fieldValues, start: false, inclusive: true) }

    /// Ends before the documents whose order-by values are `fieldValues`.
    public func end(before fieldValues: [Any]) -> Query { cursor(fieldValues, start: false, inclusive: false) }

    /// Starts at `document` (inclusive).
    public func start(atDocument document: DocumentSnapshot) -> Query {
        cursor(document, start: true, inclusive: true)
    }

    /// Starts after `document`.
    public func start(afterDocument document: DocumentSnapshot) -> Query {
        cursor(document, start: true, inclusive: false)
    }

    /// Ends at `document` (inclusive).
    public func end(atDocument document: DocumentSnapshot) -> Query {
        cursor(document, start: false, inclusive: true)
    }

    /// Ends before `document`.
    public func end(beforeDocument document: DocumentSnapshot) -> Query {
        cursor(document, start: false, inclusive: false)
    }

    private func cursor(_ fieldValues: [Any], start: Bool, inclusive: Bool) -> Query {
        let builder = MutationBuilder(databaseID: firestore.databaseID)
        return deriving { query throws(FirestoreErrorCode) in
            var values: [Value] = []
            for (index, fieldValue) in fieldValues.enumerated() {
                let isDocumentID = index < query.explicitOrderBy.count && query.explicitOrderBy[index].field.isDocumentKey
                if isDocumentID, let id = fieldValue as? String {
                    values.append(try Self.model { () throws(ModelError) in
                        try query.documentIDCursorValue(id, database: firestore.databaseID)
                    })
                    continue
                }
                let userValue = try UserDataReader.userValue(fieldValue, path: nil)
                values.append(try Self.model { () throws(ModelError) in try builder.queryValue(userValue) })
            }
            return try Self.model { () throws(ModelError) in
                switch (start, inclusive) {
                case (true, true): try query.starting(at: values)
                case (true, false): try query.starting(after: values)
                case (false, true): try query.ending(at: values)
                case (false, false): try query.ending(before: values)
                }
            }
        }
    }

    private func cursor(_ snapshot: DocumentSnapshot, start: Bool, inclusive: Bool) -> Query {
        deriving { query throws(FirestoreErrorCode) in
            let key = try snapshot.reference.key.get()
            let missing = CairnModel.Document(
                key: key, state: .noDocument, version: CairnModel.Timestamp(seconds: 0, nanoseconds: 0))
            let document = snapshot.document ?? missing
            let bound = try Self.model { () throws(ModelError) in
                try query.bound(at: document, inclusive: inclusive, database: firestore.databaseID)
            }
            return start ? query.withStart(bound) : query.withEnd(bound)
        }
    }
}
