import CairnDatabaseCore

/// The events a query raises (Firebase's `DataEventType`).
public enum DataEventType: Int, Sendable {
    case childAdded, childRemoved, childChanged, childMoved, value

    var coreType: EventType {
        switch self {
        case .childAdded: .childAdded
        case .childRemoved: .childRemoved
        case .childChanged: .childChanged
        case .childMoved: .childMoved
        case .value: .value
        }
    }
}

/// Identifies an observer for ``DatabaseQuery/removeObserver(withHandle:)``.
public typealias DatabaseHandle = UInt
