import CairnDatabaseCore

extension JSONValue {
    /// The string, nil for any other value (a status reason, a control payload).
    var wireString: String? {
        if case .string(let value) = self { return value }
        return nil
    }
}
