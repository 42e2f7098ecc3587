import CairnDatabaseCore
import Foundation

/// A location with query parameters: an order, a range, a limit. Builders return new queries.
///
/// Invalid queries: Firebase raises an exception when a builder gets an invalid argument (a second order, a second
/// limit, a key-order bound that is not a string, ...). These builders cannot throw without breaking source
/// compatibility, so the query records the first error instead; every observer of it gets that error in its
/// `withCancel:` block (`invalid_argument`, Firebase's reason where it has one) and nothing is listened to. A query
/// of an invalid reference (see ``DatabaseReference``) carries the reference's error the same way. An observer
/// without a `withCancel:` block gets nothing and the error goes to standard error (`Cairn: <message>`).
///
/// ```swift
/// let top = db.reference(withPath: "scores").queryOrderedByValue().queryLimited(toLast: 3)
/// let handle = top.observe(.childAdded, andPreviousSiblingKeyWith: { snapshot, previous in ... })
/// top.removeObserver(withHandle: handle)
/// ```
public class DatabaseQuery: @unchecked Sendable {
    let db: Database
    let path: DatabasePath
    /// The parameters, or the first error: the reference's, then a builder's.
    let state: Result<QueryParams, DatabaseCoreError>
    /// Why the location is invalid (a bad key, path or URL), inherited by every reference and query made from it.
    let referenceError: DatabaseCoreError?

    init(database: Database, path: DatabasePath, referenceError: DatabaseCoreError? = nil,
         state: Result<QueryParams, DatabaseCoreError> = .success(QueryParams())) {
        self.db = database
        self.path = path
        self.referenceError = referenceError
        self.state = referenceError.map { .failure($0) } ?? state
    }

    /// The location of this query.
    public var ref: DatabaseReference { DatabaseReference(database: db, path: path, error: referenceError) }

    var spec: QuerySpec { QuerySpec(path: path, params: (try? state.get()) ?? QueryParams()) }

    // MARK: Observers

    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) -> DatabaseHandle {
        register(eventType, once: false, callback: { snapshot, _ in block(snapshot) }, cancel: nil)
    }

    @discardableResult
    public func observe(_ eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
                        withCancel cancelBlock: ((any Error) -> Void)?) -> DatabaseHandle {
        register(eventType, once: false, callback: { snapshot, _ in block(snapshot) }, cancel: cancelBlock)
    }

    @discardableResult
    public func observe(_ eventType: DataEventType,
                        andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void) -> DatabaseHandle {
        register(eventType, once: false, callback: block, cancel: nil)
    }

    @discardableResult
    public func observe(_ eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
                        withCancel cancelBlock: ((any Error) -> Void)?) -> DatabaseHandle {
        register(eventType, once: false, callback: block, cancel: cancelBlock)
    }

    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void) {
        register(eventType, once: true, callback: { snapshot, _ in block(snapshot) }, cancel: nil)
    }

    public func observeSingleEvent(of eventType: DataEventType, with block: @escaping (DataSnapshot) -> Void,
                                   withCancel cancelBlock: ((any Error) -> Void)?) {
        register(eventType, once: true, callback: { snapshot, _ in block(snapshot) }, cancel: cancelBlock)
    }

    public func observeSingleEvent(of eventType: DataEventType,
                                   andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void) {
        register(eventType, once: true, callback: block, cancel: nil)
    }

    public func observeSingleEvent(of eventType: DataEventType, andPreviousSiblingKeyWith block: @escaping (DataSnapshot, String?) -> Void,
                                   withCancel cancelBlock: ((any Error) -> Void)?) {
        register(eventType, once: true, callback: block, cancel: cancelBlock)
    }

    /// The first event of `eventType` and its previous sibling's key.
    public func observeSingleEventAndPreviousSiblingKey(of eventType: DataEventType) async -> (DataSnapshot, String?) {
        await withCheckedContinuation { continuation in
            observeSingleEvent(of: eventType, andPreviousSiblingKeyWith: { continuation.resume(returning: ($0, $1)) })
        }
    }

    /// Removes the observer `handle` registered on this query.
    public func removeObserver(withHandle handle: DatabaseHandle) {
        guard case .success = state else { return }
        db.repo.removeEventRegistration(ObserverRegistration.removal(handle, query: self), for: spec)
    }

    /// Removes every observer of this query (of every query at this location for a reference).
    public func removeAllObservers() {
        guard case .success = state else { return }
        db.repo.removeEventRegistration(nil, for: spec)
    }

    /// Keeps the query's data listened to (and, with persistence, cached) without observers.
    public func keepSynced(_ keepSynced: Bool) {
        if case .failure(let error) = state {
            return UnhandledErrors.report("keepSynced at \(path) failed: \(error.message)")
        }
        guard !Repo.isInfo(path) else { return }
        let registration = KeepSyncedRegistration.shared
        if keepSynced {
            db.repo.addEventRegistration(registration, for: spec)
        } else {
            db.repo.removeEventRegistration(registration, for: spec)
        }
    }

    @discardableResult
    private func register(_ eventType: DataEventType, once: Bool, callback: @escaping (DataSnapshot, String?) -> Void,
                          cancel: ((any Error) -> Void)?) -> DatabaseHandle {
        let handle = db.makeHandle()
        switch state {
        case .failure(let error):
            let queue = db.callbackQueue
            if let cancel {
                nonisolated(unsafe) let cancel = cancel
                queue.async { cancel(DatabaseErrors.invalidArgument(error)) }
            } else {
                UnhandledErrors.report("observe(\(eventType)) at \(path) without a withCancel: block failed: \(error.message)")
            }
        case .success:
            let registration = ObserverRegistration(handle: handle, eventType: eventType, query: self, once: once,
                                                    callback: callback, cancel: cancel)
            db.repo.addEventRegistration(registration, for: spec)
        }
        return handle
    }

    // MARK: Builders

    func deriving(_ transform: (QueryParams) throws(DatabaseCoreError) -> QueryParams) -> DatabaseQuery {
        guard case .success(let params) = state else {
            return DatabaseQuery(database: db, path: path, referenceError: referenceError, state: state)
        }
        do throws(DatabaseCoreError) {
            return DatabaseQuery(database: db, path: path, state: .success(try transform(params)))
        } catch {
            return DatabaseQuery(database: db, path: path, state: .failure(error))
        }
    }

    public func queryLimited(toFirst limit: UInt) -> DatabaseQuery {
        deriving { params throws(DatabaseCoreError) in try params.limited(toFirst: Int(clamping: limit)) }
    }

    public func queryLimited(toLast limit: UInt) -> DatabaseQuery {
        deriving { params throws(DatabaseCoreError) in try params.limited(toLast: Int(clamping: limit)) }
    }

    public func queryOrdered(byChild key: String) -> DatabaseQuery {
        deriving { params throws(DatabaseCoreError) in
            try params.orderedBy(.child(DatabasePath(unvalidated: key)))
        }
    }

    public func queryOrderedByKey() -> DatabaseQuery { deriving { params throws(DatabaseCoreError) in try params.orderedBy(.key) } }
    public func queryOrderedByValue() -> DatabaseQuery { deriving { params throws(DatabaseCoreError) in try params.orderedBy(.value) } }
    public func queryOrderedByPriority() -> DatabaseQuery { deriving { params throws(DatabaseCoreError) in try params.orderedBy(.priority) } }

    public func queryStarting(atValue startValue: Any?) -> DatabaseQuery { queryStarting(atValue: startValue, childKey: nil) }
    public func queryStarting(atValue startValue: Any?, childKey: String?) -> DatabaseQuery {
        bound(startValue, childKey, "queryStarting(atValue:)") { params, value, key throws(DatabaseCoreError) in try params.starting(at: value, childKey: key) }
    }

    public func queryStarting(afterValue startAfterValue: Any?) -> DatabaseQuery { queryStarting(afterValue: startAfterValue, childKey: nil) }
    public func queryStarting(afterValue startAfterValue: Any?, childKey: String?) -> DatabaseQuery {
        bound(startAfterValue, childKey, "queryStarting(afterValue:)") { params, value, key throws(DatabaseCoreError) in try params.starting(after: value, childKey: key) }
    }

    public func queryEnding(atValue endValue: Any?) -> DatabaseQuery { queryEnding(atValue: endValue, childKey: nil) }
    public func queryEnding(atValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bound(endValue, childKey, "queryEnding(atValue:)") { params, value, key throws(DatabaseCoreError) in try params.ending(at: value, childKey: key) }
    }

    public func queryEnding(beforeValue endValue: Any?) -> DatabaseQuery { queryEnding(beforeValue: endValue, childKey: nil) }
    public func queryEnding(beforeValue endValue: Any?, childKey: String?) -> DatabaseQuery {
        bound(endValue, childKey, "queryEnding(beforeValue:)") { params, value, key throws(DatabaseCoreError) in try params.ending(before: value, childKey: key) }
    }

    public func queryEqual(toValue value: Any?) -> DatabaseQuery { queryEqual(toValue: value, childKey: nil) }
    public func queryEqual(toValue value: Any?, childKey: String?) -> DatabaseQuery {
        bound(value, childKey, "queryEqual(toValue:)") { params, value, key throws(DatabaseCoreError) in try params.equal(to: value, childKey: key) }
    }

    private func bound(_ value: Any?, _ childKey: String?, _ method: String,
                       _ apply: (QueryParams, JSONValue, String?) throws(DatabaseCoreError) -> QueryParams) -> DatabaseQuery {
        deriving { params throws(DatabaseCoreError) in
            if let childKey { try KeyValidation.validateKey(childKey) }
            return try apply(params, try DatabaseValues.bound(value, method: method), childKey)
        }
    }
}

/// The registration `keepSynced(true)` adds: no callbacks, one per database, so the query stays listened to.
final class KeepSyncedRegistration: EventRegistration, @unchecked Sendable {
    static let shared = KeepSyncedRegistration()
    func responds(to type: EventType) -> Bool { false }
    func matches(_ other: any EventRegistration) -> Bool { other === self }
    var hasAnyCallback: Bool { true }
    var wantsCancelEvents: Bool { false }
}
