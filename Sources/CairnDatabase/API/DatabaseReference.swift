import CairnDatabaseCore
import Foundation

/// A location in the database: read it (a ``DatabaseQuery``), write it, walk to its children and parents.
///
/// Writes are optimistic: observers see them at once; the completion runs when the server accepted or rejected
/// the write (a rejection reverts the local events and passes the error). Invalid data or paths go to the
/// completion as `invalid_argument` errors, and nothing is written.
///
/// A reference made from an invalid key, path or URL (`child("a.b")`, a key over 768 bytes, `reference(fromURL:)`
/// with another database's URL) does not stop the program as Firebase's exception does: it carries the error, and
/// every use of it fails with it (code 9999, failure reason `invalid_argument`, Firebase's message): writes and
/// transactions through their completion (the `async` forms throw), observers through their `withCancel:` block.
/// Without a completion or cancel block the error goes to standard error (`Cairn: <message>`). References and
/// queries made from an invalid reference (`child`, `parent`, `root`, `childByAutoId`, the query builders) carry
/// the same error.
///
/// ```swift
/// let post = db.reference(withPath: "posts").childByAutoId()
/// post.setValue(["title": "Hello", "at": ServerValue.timestamp()]) { error, _ in ... }
/// try await post.updateChildValues(["title": "Hi", "stats/views": 1])
/// ```
public final class DatabaseReference: DatabaseQuery, CustomStringConvertible, @unchecked Sendable {
    init(database: Database, path: DatabasePath, error: DatabaseCoreError? = nil) {
        super.init(database: database, path: path, referenceError: error)
    }

    /// Firebase's reason for an invalid key or path given to `method`, with what exactly is wrong.
    static func invalidPath(_ method: String, _ error: DatabaseCoreError) -> DatabaseCoreError {
        guard error.code == .invalidKey else { return DatabaseCoreError(error.code, "(\(method)) \(error.message)") }
        return DatabaseCoreError(.invalidKey, "(\(method)) Must be a non-empty string and not contain '.' '#' '$' '[' or ']': \(error.message)")
    }

    /// Parses a user path: keys validated, `.info` allowed as the first key.
    static func validatedPath(_ string: String) throws(DatabaseCoreError) -> DatabasePath {
        let unchecked = DatabasePath(unvalidated: string)
        if unchecked.front == Repo.infoKey {
            _ = try DatabasePath(unchecked.popFront.keys.joined(separator: "/"))
            return unchecked
        }
        return try DatabasePath(string)
    }

    // MARK: Navigation

    /// The location at the relative path `pathString` ("a" or "a/b"). An invalid path (empty, a key with `.` `#`
    /// `$` `[` `]` or a control character, a key over 768 bytes, a path over 768 bytes or 32 keys) gives a reference
    /// that carries the error (Firebase raises an exception).
    public func child(_ pathString: String) -> DatabaseReference {
        let relative = DatabasePath(unvalidated: pathString)
        if referenceError != nil { return descendant(relative) }
        do throws(DatabaseCoreError) {
            if pathString.isEmpty { throw DatabaseCoreError(.invalidKey, "the path is empty") }
            let validated = try DatabasePath(pathString)
            try KeyValidation.validatePath(path.child(validated))
            return descendant(validated)
        } catch {
            return DatabaseReference(database: db, path: path.child(relative), error: DatabaseReference.invalidPath("child:", error))
        }
    }

    /// The reference at `relative` below this one (keys already valid), carrying this reference's error.
    func descendant(_ relative: DatabasePath) -> DatabaseReference {
        DatabaseReference(database: db, path: path.child(relative), error: referenceError)
    }

    /// A new child with a push id: time-ordered, increasing within a millisecond.
    public func childByAutoId() -> DatabaseReference { descendant(DatabasePath(keys: [PushID.next()])) }

    public var parent: DatabaseReference? { path.parent.map { DatabaseReference(database: db, path: $0, error: referenceError) } }
    public var root: DatabaseReference { DatabaseReference(database: db, path: .root, error: referenceError) }
    /// The last key of the path, nil for the root.
    public var key: String? { path.back }
    /// The full URL of this location.
    public var url: String { db.url.url(of: path) }
    public var description: String { url }

    /// The database this reference belongs to.
    public var database: Database { db }

    // MARK: Connection

    /// Takes every started database of every app offline (Firebase's class method); ``goOnline()`` reconnects them.
    public class func goOffline() { Database.startedRepos().forEach { $0.goOffline() } }

    /// Reconnects every started database of every app after ``goOffline()``.
    public class func goOnline() { Database.startedRepos().forEach { $0.goOnline() } }

    // MARK: Writes

    public func setValue(_ value: Any?) { setValue(value, withCompletionBlock: nil) }

    public func setValue(_ value: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write("setValue", block) { () throws(DatabaseCoreError) in
            try checkWritable("setValue:withCompletionBlock:")
            let node = try DatabaseValues.node(value, at: path)
            return .overwrite(node)
        }
    }

    public func setValue(_ value: Any?, andPriority priority: Any?) { setValue(value, andPriority: priority, withCompletionBlock: nil) }

    public func setValue(_ value: Any?, andPriority priority: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write("setValue", block) { () throws(DatabaseCoreError) in
            try checkWritable("setValue:andPriority:withCompletionBlock:")
            let node = try DatabaseValues.node(value, at: path)
            let priorityNode = try DatabaseValues.node([".value": 0, ".priority": priority ?? NSNull()], at: path).priority
            return .overwrite(node.isEmpty ? node : node.updatePriority(priorityNode))
        }
    }

    public func removeValue() { removeValue(completionBlock: nil) }

    public func removeValue(completionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        setValue(nil, withCompletionBlock: block)
    }

    public func setPriority(_ priority: Any?) { setPriority(priority, withCompletionBlock: nil) }

    public func setPriority(_ priority: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write("setPriority", block) { () throws(DatabaseCoreError) in
            try checkWritable("setPriority:withCompletionBlock:")
            let priorityNode = try DatabaseValues.node([".value": 0, ".priority": priority ?? NSNull()], at: path).priority
            return .priority(priorityNode)
        }
    }

    /// Writes several relative paths at once ("a/b": 1), atomically; overlapping paths are an error.
    public func updateChildValues(_ values: [AnyHashable: Any]) { updateChildValues(values, withCompletionBlock: nil) }

    public func updateChildValues(_ values: [AnyHashable: Any], withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write("updateChildValues", block) { () throws(DatabaseCoreError) in
            try checkWritable("updateChildValues:withCompletionBlock:")
            return .merge(try updateChildren(values))
        }
    }

    /// The relative paths and nodes of an update; overlapping paths are an error.
    func updateChildren(_ values: [AnyHashable: Any]) throws(DatabaseCoreError) -> [(DatabasePath, Node)] {
        var children: [(DatabasePath, Node)] = []
        for (key, value) in values {
            guard let string = key.base as? String else {
                throw DatabaseCoreError(.invalidData, "updateChildValues(_:) needs String keys, got \(key)")
            }
            let relative = try DatabasePath(string)
            let full = path.child(relative)
            try KeyValidation.validatePath(full)
            children.append((relative, try DatabaseValues.node(value, at: full)))
        }
        for (outer, _) in children {
            for (inner, _) in children where inner != outer && outer.contains(inner) {
                throw DatabaseCoreError(.invalidData, "Path \(outer) is an ancestor of \(inner) in the same update")
            }
        }
        return children
    }

    // MARK: Sending

    enum Write {
        case overwrite(Node)
        case priority(Node)
        case merge([(DatabasePath, Node)])
    }

    /// Throws the reference's error, or Firebase's error for a write under `.info` (`method` names the call).
    func checkWritable(_ method: String) throws(DatabaseCoreError) {
        if let referenceError { throw referenceError }
        if Repo.isInfo(path) {
            throw DatabaseCoreError(.invalidPath, "(\(method)) failed to path \(path): Can't modify data under /.info/")
        }
    }

    /// Runs `block` on the callback queue with the error and this reference. Without a block, an error (other than
    /// `write_canceled`, which the program asked for) goes to ``UnhandledErrors``.
    func completion(_ block: ((Error?, DatabaseReference) -> Void)?, _ method: String) -> @Sendable (Error?) -> Void {
        let queue = db.callbackQueue
        nonisolated(unsafe) let block = block
        let path = path
        return { [self] error in
            if block != nil {
                queue.async { block?(error, self) }
            } else if let error = error as NSError?, error.code != 3 {
                UnhandledErrors.report("\(method) at \(path) failed: \(error.localizedDescription)")
            }
        }
    }

    private func write(_ method: String, _ block: ((Error?, DatabaseReference) -> Void)?, _ make: () throws(DatabaseCoreError) -> Write) {
        let complete = completion(block, method)
        let write: Write
        do throws(DatabaseCoreError) { write = try make() } catch {
            return complete(DatabaseErrors.invalidArgument(error))
        }
        let done: @Sendable (WriteStatus) -> Void = { status in complete(DatabaseErrors.error(status)) }
        switch write {
        case .overwrite(let node): db.repo.setValue(at: path, node, completion: done)
        case .priority(let node): db.repo.setValue(at: path.child(".priority"), node, completion: done)
        case .merge(let children): db.repo.update(at: path, children, completion: done)
        }
    }
}
