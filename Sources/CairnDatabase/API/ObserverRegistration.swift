import CairnDatabaseCore
import Foundation

/// An observer in the sync tree: the event type it wants, its callbacks, the query it watches. Removal requests
/// are registrations without callbacks that match by handle. Raised on the database's callback queue.
final class ObserverRegistration: EventRegistration, @unchecked Sendable {
    let handle: DatabaseHandle
    let eventType: DataEventType?
    let query: DatabaseQuery
    let callback: ((DataSnapshot, String?) -> Void)?
    let cancel: ((any Error) -> Void)?
    /// `observeSingleEvent`: the first event removes the registration.
    let once: Bool
    private var fired = false

    init(handle: DatabaseHandle, eventType: DataEventType?, query: DatabaseQuery, once: Bool = false,
         callback: ((DataSnapshot, String?) -> Void)?, cancel: ((any Error) -> Void)?) {
        self.handle = handle
        self.eventType = eventType
        self.query = query
        self.once = once
        self.callback = callback
        self.cancel = cancel
    }

    /// A request to remove the registration with `handle`.
    static func removal(_ handle: DatabaseHandle, query: DatabaseQuery) -> ObserverRegistration {
        ObserverRegistration(handle: handle, eventType: nil, query: query, callback: nil, cancel: nil)
    }

    func responds(to type: EventType) -> Bool { eventType?.coreType == type }
    func matches(_ other: any EventRegistration) -> Bool { (other as? ObserverRegistration)?.handle == handle }
    var hasAnyCallback: Bool { true }
    var wantsCancelEvents: Bool { cancel != nil }

    /// Runs the event's callback (on the callback queue).
    static func raise(_ event: DatabaseEvent) {
        switch event {
        case .data(let data):
            guard let registration = data.registration as? ObserverRegistration else { return }
            registration.fire(data)
        case .cancel(let cancel):
            guard let registration = cancel.registration as? ObserverRegistration else { return }
            registration.cancel?(DatabaseErrors.error(status: "permission_denied", reason: cancel.error.message))
        }
    }

    private func fire(_ event: DataEvent) {
        guard let callback, !(once && fired) else { return }
        if once {
            fired = true
            query.db.repo.removeEventRegistration(self, for: query.spec)
        }
        let ref = DatabaseReference(database: query.db, path: event.query.path)
        let snapshot = DataSnapshot(ref: event.childKey.map { ref.descendant(DatabasePath(keys: [$0])) } ?? ref, node: event.node, index: event.query.params.index)
        callback(snapshot, event.prevName)
    }
}
