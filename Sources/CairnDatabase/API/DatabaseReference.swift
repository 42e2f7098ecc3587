import CairnDatabaseCore
import Foundation

/// A location in the database: read it (a ``DatabaseQuery``), write it, walk to its children and parents.
///
/// Writes are optimistic: observers see them at once; the completion runs when the server accepted or rejected
/// the write (a rejection reverts the local events and passes the error). Invalid data or paths go to the
/// completion as `invalid_argument` errors, and nothing is written.
///
/// ```swift
/// let post = db.reference(withPath: "posts").childByAutoId()
/// post.setValue(["title": "Hello", "at": ServerValue.timestamp()]) { error, _ in ... }
/// try await post.updateChildValues(["title": "Hi", "stats/views": 1])
/// ```
public final class DatabaseReference: DatabaseQuery, CustomStringConvertible, @unchecked Sendable {
    init(database: Database, path: DatabasePath) {
        super.init(database: database, path: path)
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

    /// The location at the relative path `pathString` ("a" or "a/b"); an invalid path stops the program with the
    /// reason, as Firebase raises.
    public func child(_ pathString: String) -> DatabaseReference {
        do {
            let relative = try DatabasePath(pathString)
            let full = path.child(relative)
            try KeyValidation.validatePath(full)
            return descendant(relative)
        } catch {
            preconditionFailure("Invalid path in child(_:): \(error.message)")
        }
    }

    func descendant(_ relative: DatabasePath) -> DatabaseReference {
        DatabaseReference(database: db, path: path.child(relative))
    }

    /// A new child with a push id: time-ordered, increasing within a millisecond.
    public func childByAutoId() -> DatabaseReference { descendant(DatabasePath(keys: [PushID.next()])) }

    public var parent: DatabaseReference? { path.parent.map { DatabaseReference(database: db, path: $0) } }
    public var root: DatabaseReference { DatabaseReference(database: db, path: .root) }
    /// The last key of the path, nil for the root.
    public var key: String? { path.back }
    /// The full URL of this location.
    public var url: String { db.url.url(of: path) }
    public var description: String { url }

    /// The database this reference belongs to.
    public var database: Database { db }

    // MARK: Writes

    public func setValue(_ value: Any?) { setValue(value, withCompletionBlock: nil) }

    public func setValue(_ value: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write(block) { () throws(DatabaseCoreError) in
            let node = try DatabaseValues.node(value, at: path)
            try checkWritable()
            return .overwrite(node)
        }
    }

    public func setValue(_ value: Any?, andPriority priority: Any?) { setValue(value, andPriority: priority, withCompletionBlock: nil) }

    public func setValue(_ value: Any?, andPriority priority: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write(block) { () throws(DatabaseCoreError) in
            let node = try DatabaseValues.node(value, at: path)
            let priorityNode = try DatabaseValues.node([".value": 0, ".priority": priority ?? NSNull()], at: path).priority
            try checkWritable()
            return .overwrite(node.isEmpty ? node : node.updatePriority(priorityNode))
        }
    }

    public func removeValue() { removeValue(completionBlock: nil) }

    public func removeValue(completionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        setValue(nil, withCompletionBlock: block)
    }

    public func setPriority(_ priority: Any?) { setPriority(priority, withCompletionBlock: nil) }

    public func setPriority(_ priority: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write(block) { () throws(DatabaseCoreError) in
            let priorityNode = try DatabaseValues.node([".value": 0, ".priority": priority ?? NSNull()], at: path).priority
            try checkWritable()
            return .priority(priorityNode)
        }
    }

    /// Writes several relative paths at once ("a/b": 1), atomically; overlapping paths are an error.
    public func updateChildValues(_ values: [AnyHashable: Any]) { updateChildValues(values, withCompletionBlock: nil) }

    public func updateChildValues(_ values: [AnyHashable: Any], withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        write(block) { () throws(DatabaseCoreError) in
            try checkWritable()
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

    private func checkWritable() throws(DatabaseCoreError) {
        if Repo.isInfo(path) { throw DatabaseCoreError(.invalidPath, "\(path) is read-only: .info paths are local") }
    }

    /// Runs `block` on the callback queue with the error and this reference.
    func completion(_ block: ((Error?, DatabaseReference) -> Void)?) -> @Sendable (Error?) -> Void {
        let queue = db.callbackQueue
        nonisolated(unsafe) let block = block
        return { [self] error in
            if block != nil { queue.async { block?(error, self) } }
        }
    }

    private func write(_ block: ((Error?, DatabaseReference) -> Void)?, _ make: () throws(DatabaseCoreError) -> Write) {
        let complete = completion(block)
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
