/// The kinds of events, in the order Firebase raises them within one batch for one registration.
package enum EventType: String, Sendable, CaseIterable, Comparable {
    case childRemoved = "child_removed"
    case childAdded = "child_added"
    case childMoved = "child_moved"
    case childChanged = "child_changed"
    case value

    var rank: Int { EventType.allCases.firstIndex(of: self)! }

    package static func < (a: EventType, b: EventType) -> Bool { a.rank < b.rank }
}

/// A listener attached to a query (Firebase's `EventRegistration`): which event types it wants and how to tell
/// whether another registration is the same one (for removal).
package protocol EventRegistration: AnyObject {
    func responds(to type: EventType) -> Bool
    /// True when `other` is this registration (or one removal should remove).
    func matches(_ other: any EventRegistration) -> Bool
    /// False for a removal request that matches every registration of a view ("remove all observers").
    var hasAnyCallback: Bool { get }
    /// True when the registration has a cancel callback (a revoked listen raises a cancel event for it).
    var wantsCancelEvents: Bool { get }
}

/// An event for one registration: a data event (type, the query, the child key for child events, the node, the
/// previous sibling's key), or a cancel with the error that ended the listen.
package enum DatabaseEvent {
    case data(DataEvent)
    case cancel(CancelEvent)
}

package struct DataEvent {
    package let type: EventType
    package let registration: any EventRegistration
    package let query: QuerySpec
    /// The child's key for child events, nil for `value`.
    package let childKey: String?
    package let node: Node
    package let prevName: String?
}

package struct CancelEvent {
    package let registration: any EventRegistration
    package let path: DatabasePath
    package let error: DatabaseCoreError
}
