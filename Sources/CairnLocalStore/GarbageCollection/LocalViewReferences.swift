import CairnModel

/// The documents each active target's local view shows (Firebase's `local_view_references_`): session state,
/// never written. Garbage collection never takes a document a local view shows.
///
/// ```swift
/// var references = LocalViewReferences()
/// references.add([key], target: 2)          // [key]: shown by no view before
/// references.contains(key)                  // true
/// references.removeAll(of: 2)               // [key]: shown by no view now
/// ```
struct LocalViewReferences {
    /// Target → the documents its local view shows.
    private(set) var byTarget: [Int32: Set<DocumentKey>] = [:]
    /// Document → how many local views show it.
    private var counts: [DocumentKey: Int] = [:]

    func contains(_ key: DocumentKey) -> Bool { counts[key] != nil }

    /// Records that `target`'s view shows `keys`; returns the keys that were shown by no view before.
    mutating func add(_ keys: Set<DocumentKey>, target: Int32) -> [DocumentKey] {
        var newlyPinned: [DocumentKey] = []
        for key in keys where byTarget[target, default: []].insert(key).inserted {
            counts[key, default: 0] += 1
            if counts[key] == 1 { newlyPinned.append(key) }
        }
        return newlyPinned
    }

    /// Records that `target`'s view no longer shows `keys`; returns the keys no view shows any more.
    mutating func remove(_ keys: Set<DocumentKey>, target: Int32) -> [DocumentKey] {
        var released: [DocumentKey] = []
        for key in keys where byTarget[target]?.remove(key) != nil {
            let count = counts[key, default: 1] - 1
            counts[key] = count == 0 ? nil : count
            if count == 0 { released.append(key) }
        }
        if byTarget[target]?.isEmpty == true { byTarget[target] = nil }
        return released
    }

    /// Drops every reference of `target`'s view (the target is released); returns the keys no view shows now.
    mutating func removeAll(of target: Int32) -> [DocumentKey] {
        remove(byTarget[target] ?? [], target: target)
    }
}
