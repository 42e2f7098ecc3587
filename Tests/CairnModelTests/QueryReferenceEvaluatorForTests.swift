@testable import CairnModel

/// A deliberately plain query evaluator, written from the rules in `reference/firestore-semantics.md` §6.2–6.3
/// and shared with `Query` only through `Value`'s order and equality and the paths' order. The randomized
/// suite checks `Query.matches`, `compareDocuments`, `results(from:)` and `target` against it.
struct ReferenceEvaluator {
    let query: Query

    /// The field's value, walking nested maps by hand.
    func lookup(_ document: Document, _ field: FieldPath) -> Value? {
        var current: Value = .map(document.data)
        for segment in field.segments {
            guard case .map(let object) = current, let next = object.fields[segment] else { return nil }
            current = next
        }
        return current
    }

    /// Explicit order, then unordered inequality fields sorted, then the key, in the last explicit direction.
    var order: [(field: FieldPath, descending: Bool)] {
        var result = query.explicitOrderBy.map { (field: $0.field, descending: $0.descending) }
        let direction = result.last?.descending ?? false
        let inequalityOps: [FilterOperator] = [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn]
        var inequalityFields: [FieldPath] = []
        for filter in query.filters {
            for leaf in leaves(filter) where inequalityOps.contains(leaf.op) && !leaf.field.isDocumentKey {
                let ordered = result.contains { $0.field == leaf.field } || inequalityFields.contains(leaf.field)
                if !ordered { inequalityFields.append(leaf.field) }
            }
        }
        result += inequalityFields.sorted().map { (field: $0, descending: direction) }
        if !result.contains(where: { $0.field.isDocumentKey }) {
            result.append((field: .documentKey, descending: direction))
        }
        return result
    }

    func leaves(_ filter: Filter) -> [FieldFilter] {
        switch filter {
        case .field(let leaf): return [leaf]
        case .composite(let composite): return composite.filters.flatMap { leaves($0) }
        }
    }

    func inScope(_ key: DocumentKey) -> Bool {
        let segments = key.path.segments
        let base = query.path.segments
        guard segments.count > base.count, ResourcePath(segments: Array(segments.prefix(base.count))) == query.path else {
            return false
        }
        if let group = query.collectionGroup {
            return Array(segments[segments.count - 2].utf8) == Array(group.utf8)
        }
        return segments.count == base.count + 1
    }

    func keyOrder(_ a: DocumentKey, _ b: DocumentKey) -> Int { a.path < b.path ? -1 : (a.path == b.path ? 0 : 1) }

    func holds(_ filter: Filter, _ document: Document) -> Bool {
        switch filter {
        case .field(let leaf): return holds(leaf, document)
        case .composite(let composite):
            let results = composite.filters.map { holds($0, document) }
            return composite.op == .and ? !results.contains(false) : results.contains(true)
        }
    }

    func holds(_ leaf: FieldFilter, _ document: Document) -> Bool {
        if leaf.field.isDocumentKey {
            let listed = (leaf.value.arrayElements ?? []).contains { element in
                if case .reference(_, let key) = element { return key == document.key }
                return false
            }
            switch leaf.op {
            case .in: return listed
            case .notIn: return !listed
            default:
                guard case .reference(_, let key) = leaf.value else { return false }
                return satisfies(leaf.op, keyOrder(document.key, key))
            }
        }
        guard let value = lookup(document, leaf.field) else { return false }
        let operandList = leaf.value.arrayElements ?? []
        switch leaf.op {
        case .equal, .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            guard value.typeOrder == leaf.value.typeOrder else { return false }
            return satisfies(leaf.op, Value.compare(value, leaf.value))
        case .notEqual:
            if case .null = value { return false }
            return Value.compare(value, leaf.value) != 0
        case .arrayContains:
            guard case .array(let elements) = value else { return false }
            return elements.contains { $0 == leaf.value }
        case .arrayContainsAny:
            guard case .array(let elements) = value else { return false }
            return elements.contains { element in operandList.contains { $0 == element } }
        case .in:
            return operandList.contains { $0 == value }
        case .notIn:
            if case .null = value { return false }
            if operandList.contains(where: { if case .null = $0 { true } else { false } }) { return false }
            return !operandList.contains { $0 == value }
        }
    }

    func satisfies(_ op: FilterOperator, _ comparison: Int) -> Bool {
        switch op {
        case .equal: comparison == 0
        case .notEqual: comparison != 0
        case .lessThan: comparison < 0
        case .lessThanOrEqual: comparison <= 0
        case .greaterThan: comparison > 0
        case .greaterThanOrEqual: comparison >= 0
        default: false
        }
    }

    /// -1, 0 or 1 for document `a` against document `b` on one order component.
    func componentOrder(_ a: Document, _ b: Document, _ component: (field: FieldPath, descending: Bool)) -> Int {
        let ascending =
            component.field.isDocumentKey
            ? keyOrder(a.key, b.key)
            : Value.compare(lookup(a, component.field)!, lookup(b, component.field)!)
        return component.descending ? -ascending : ascending
    }

    /// The position against the document in query order: -1 position first, 0 tie, 1 document first.
    func positionOrder(_ bound: Bound, _ document: Document) -> Int {
        let order = self.order
        for (index, component) in bound.position.enumerated() {
            let spec = order[index]
            var comparison: Int
            if spec.field.isDocumentKey {
                guard case .reference(_, let key) = component else { return 0 }
                comparison = keyOrder(key, document.key)
            } else {
                comparison = Value.compare(component, lookup(document, spec.field)!)
            }
            if spec.descending { comparison = -comparison }
            if comparison != 0 { return comparison }
        }
        return 0
    }

    func matches(_ document: Document) -> Bool {
        guard document.state == .found, inScope(document.key) else { return false }
        for component in order where !component.field.isDocumentKey && lookup(document, component.field) == nil {
            return false
        }
        guard query.filters.allSatisfy({ holds($0, document) }) else { return false }
        if let start = query.startAt {
            let comparison = positionOrder(start, document)
            if comparison > 0 || (comparison == 0 && !start.inclusive) { return false }
        }
        if let end = query.endAt {
            let comparison = positionOrder(end, document)
            if comparison < 0 || (comparison == 0 && !end.inclusive) { return false }
        }
        return true
    }

    func compare(_ a: Document, _ b: Document) -> Int {
        for component in order {
            let comparison = componentOrder(a, b, component)
            if comparison != 0 { return comparison }
        }
        return 0
    }

    func evaluate(_ documents: [Document]) -> [Document] {
        let sorted = documents.filter(matches).sorted { compare($0, $1) < 0 }
        guard let limit = query.limit else { return sorted }
        return query.limitType == .first ? Array(sorted.prefix(limit)) : Array(sorted.suffix(limit))
    }
}
