import CairnDatabaseCore
import Foundation

/// Writes the server makes when this client disconnects (presence). The server keeps them per connection and runs
/// them once; this client mirrors the accepted ones and applies them locally when it sees the connection drop.
/// Register them again on each connection (inside the `.info/connected == true` observer). Offline, nothing is
/// sent and the completion waits.
///
/// ```swift
/// let me = db.reference(withPath: "presence").childByAutoId()
/// me.onDisconnectRemoveValue()
/// me.setValue(true)
/// ```
extension DatabaseReference {
    public func onDisconnectSetValue(_ value: Any?) { onDisconnectSetValue(value, withCompletionBlock: nil) }

    public func onDisconnectSetValue(_ value: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        onDisconnectWrite(block) { () throws(DatabaseCoreError) in .overwrite(try DatabaseValues.node(value, at: path)) }
    }

    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?) {
        onDisconnectSetValue(value, andPriority: priority, withCompletionBlock: nil)
    }

    public func onDisconnectSetValue(_ value: Any?, andPriority priority: Any?, withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        onDisconnectWrite(block) { () throws(DatabaseCoreError) in
            let node = try DatabaseValues.node(value, at: path)
            let priorityNode = try DatabaseValues.node([".value": 0, ".priority": priority ?? NSNull()], at: path).priority
            return .overwrite(node.isEmpty ? node : node.updatePriority(priorityNode))
        }
    }

    public func onDisconnectRemoveValue() { onDisconnectRemoveValue(completionBlock: nil) }

    public func onDisconnectRemoveValue(completionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        onDisconnectSetValue(nil, withCompletionBlock: block)
    }

    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any]) {
        onDisconnectUpdateChildValues(values, withCompletionBlock: nil)
    }

    public func onDisconnectUpdateChildValues(_ values: [AnyHashable: Any], withCompletionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        onDisconnectWrite(block) { () throws(DatabaseCoreError) in .merge(try updateChildren(values)) }
    }

    public func cancelDisconnectOperations() { cancelDisconnectOperations(completionBlock: nil) }

    public func cancelDisconnectOperations(completionBlock block: ((Error?, DatabaseReference) -> Void)?) {
        let done = completion(block, "cancelDisconnectOperations")
        if let referenceError { return done(DatabaseErrors.invalidArgument(referenceError)) }
        db.repo.onDisconnectCancel(at: path) { done(DatabaseErrors.error($0)) }
    }

    private func onDisconnectWrite(_ block: ((Error?, DatabaseReference) -> Void)?, _ make: () throws(DatabaseCoreError) -> Write) {
        let done = completion(block, "onDisconnect")
        let write: Write
        do throws(DatabaseCoreError) {
            try checkWritable("onDisconnect")
            write = try make()
        } catch {
            return done(DatabaseErrors.invalidArgument(error))
        }
        switch write {
        case .overwrite(let node): db.repo.onDisconnectSetValue(at: path, node) { done(DatabaseErrors.error($0)) }
        case .merge(let children): db.repo.onDisconnectUpdate(at: path, children) { done(DatabaseErrors.error($0)) }
        case .priority(let node): db.repo.onDisconnectSetValue(at: path.child(".priority"), node) { done(DatabaseErrors.error($0)) }
        }
    }
}
