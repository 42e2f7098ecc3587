import CairnDatabaseCore

/// An event a step expects: its type, the listen path it is for, the child's key and previous sibling, and the hash
/// of its data.
struct ExpectedEvent {
    var type: EventType
    var path: DatabasePath
    var name: String?
    var prevName: String?
    var hash: String
}

/// Compares raised events with expected ones as Firebase's driver does: snapshots by hash; child keys and
/// previous-sibling keys for child events (not the previous key of `child_removed` in set matching).
struct EventMatcher {
    let basePath: DatabasePath
    let step: Int

    private func fail(_ message: String) -> SpecFailure { SpecFailure(step: step, message: message) }

    private static func describe(_ event: DatabaseEvent) -> String {
        switch event {
        case .data(let data):
            let registration = data.registration as? SpecRegistration
            return "\(data.type.rawValue)(\(registration?.listenPath.description ?? "?") key=\(data.childKey ?? "-") prev=\(data.prevName ?? "nil") data=\(Node.canonicalJSON(data.node.exportJSON())))"
        case .cancel(let cancel):
            return "cancel(\(cancel.path))"
        }
    }

    private static func describe(_ events: [DatabaseEvent]) -> String {
        "[" + events.map(describe).joined(separator: ", ") + "]"
    }

    private static func dataEvent(_ event: DatabaseEvent) -> DataEvent? {
        if case .data(let data) = event { return data }
        return nil
    }

    /// Listen and unlisten steps: the same events in the same order.
    func exactMatch(_ expected: [ExpectedEvent], _ actual: [DatabaseEvent]) throws {
        guard expected.count == actual.count else {
            throw fail("expected \(expected.count) events, got \(actual.count): \(Self.describe(actual))")
        }
        for (position, (want, got)) in zip(expected, actual).enumerated() {
            guard let data = Self.dataEvent(got) else { throw fail("event \(position) is a cancel") }
            guard data.type == want.type else {
                throw fail("event \(position): expected \(want.type.rawValue), got \(Self.describe(got))")
            }
            if want.type != .value {
                guard data.childKey == want.name, data.prevName == want.prevName else {
                    throw fail("event \(position): expected \(want.type.rawValue) \(want.name ?? "nil") after \(want.prevName ?? "nil"), got \(Self.describe(got))")
                }
            }
            guard data.node.hash == want.hash else {
                throw fail("event \(position): the snapshot differs, got \(Self.describe(got))")
            }
        }
    }

    /// Other steps: expected events come in groups by path; each group takes as many raised events, which must be for
    /// listens at that path, in the order removed < added < moved < changed < value per registration, and each must
    /// match an expected event of the group.
    func setMatch(_ expected: [ExpectedEvent], _ actual: [DatabaseEvent]) throws {
        guard expected.count == actual.count else {
            throw fail("expected \(expected.count) events, got \(actual.count): \(Self.describe(actual))")
        }
        var remainingExpected = expected[...]
        var remainingActual = actual[...]
        while let first = remainingExpected.first {
            let groupSize = remainingExpected.prefix { $0.path == first.path }.count
            var group = Array(remainingExpected.prefix(groupSize))
            let actualGroup = remainingActual.prefix(groupSize)
            var lastTypeByListen: [String: EventType] = [:]
            for event in actualGroup {
                guard let data = Self.dataEvent(event), let registration = data.registration as? SpecRegistration else {
                    throw fail("unexpected event \(Self.describe(event))")
                }
                guard registration.listenPath == first.path else {
                    throw fail("expected an event for the listen at \(first.path), got \(Self.describe(event)) in \(Self.describe(actual))")
                }
                let listenId = registration.listenPath.description + "|" + registration.queryIdentifier
                if let last = lastTypeByListen[listenId], data.type < last {
                    throw fail("received \(data.type.rawValue) after \(last.rawValue) for \(listenId)")
                }
                lastTypeByListen[listenId] = data.type
                let found = group.firstIndex { want in
                    guard want.type == data.type else { return false }
                    if want.type != .value {
                        if want.name != data.childKey { return false }
                        if want.type != .childRemoved && want.prevName != data.prevName { return false }
                    }
                    return data.node.hash == want.hash
                }
                guard let found else {
                    throw fail("no expected event matches \(Self.describe(event)); raised \(Self.describe(actual))")
                }
                group.remove(at: found)
            }
            remainingExpected = remainingExpected.dropFirst(groupSize)
            remainingActual = remainingActual.dropFirst(groupSize)
        }
    }
}
