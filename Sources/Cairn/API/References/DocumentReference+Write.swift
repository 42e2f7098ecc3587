import CairnCore
import CairnModel
import Foundation

/// Writes: each builds one mutation from the user data (Firebase's rules and messages, see
/// ``UserDataReader`` and CairnModel's `MutationBuilder`) and hands it to the client. Invalid data never reaches
/// the cache: the completion gets `invalidArgument`. Offline, the write applies to the local cache at once and
/// the completion runs when the server acknowledges it.
///
/// ```swift
/// ref.setData(["name": "Ada"])                                   // replace the document
/// ref.setData(["address": ["city": "London"]], merge: true)      // merge into it
/// ref.setData(["a": 1, "b": 2], mergeFields: ["a"])              // write only a
/// ref.updateData(["address.city": "Paris"])                      // the document must exist
/// ref.delete()
/// ```
extension DocumentReference {
    /// Replaces the document with `documentData` (creating it if needed).
    public func setData(_ documentData: [String: Any], completion: ((Error?) -> Void)? = nil) {
        firestore.write(completion: completion) { () throws(FirestoreErrorCode) in
            try [self.setMutation(documentData, merge: false, mergeFields: nil)]
        }
    }

    /// With `merge: true`, writes only the fields in `documentData` (nested maps merge too); with `false`, as
    /// ``setData(_:completion:)``.
    public func setData(_ documentData: [String: Any], merge: Bool, completion: ((Error?) -> Void)? = nil) {
        firestore.write(completion: completion) { () throws(FirestoreErrorCode) in
            try [self.setMutation(documentData, merge: merge, mergeFields: nil)]
        }
    }

    /// Writes only the fields named in `mergeFields` (dotted `String`s or ``FieldPath``s), each of which must be
    /// in `documentData`.
    public func setData(_ documentData: [String: Any], mergeFields: [Any], completion: ((Error?) -> Void)? = nil) {
        firestore.write(completion: completion) { () throws(FirestoreErrorCode) in
            try [self.setMutation(documentData, merge: true, mergeFields: mergeFields)]
        }
    }

    /// Updates the fields named by the keys (dotted `String`s or ``FieldPath``s) of an existing document; the
    /// write fails with `notFound` on the server when the document does not exist.
    public func updateData(_ fields: [AnyHashable: Any], completion: ((Error?) -> Void)? = nil) {
        firestore.write(completion: completion) { () throws(FirestoreErrorCode) in
            try [self.updateMutation(fields)]
        }
    }

    /// Deletes the document (whether or not it exists).
    public func delete(completion: ((Error?) -> Void)? = nil) {
        firestore.write(completion: completion) { () throws(FirestoreErrorCode) in
            [try self.deleteMutation()]
        }
    }

    /// The mutation of `setData` with these arguments.
    func setMutation(_ data: [String: Any], merge: Bool, mergeFields: [Any]?) throws(FirestoreErrorCode) -> Mutation {
        let key = try self.key.get()
        let fields = try UserDataReader.document(data)
        let paths = try mergeFields.map(Self.fieldPaths)
        do throws(ModelError) {
            guard merge else { return try mutationBuilder.set(key, data: fields) }
            return try mutationBuilder.setMerge(key, data: fields, mergeFields: paths)
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// The mutation of `updateData(fields)`.
    func updateMutation(_ fields: [AnyHashable: Any]) throws(FirestoreErrorCode) -> Mutation {
        let key = try self.key.get()
        let data = try UserDataReader.updateFields(fields)
        do throws(ModelError) {
            return try mutationBuilder.update(key, data: data)
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// The mutation of `delete()`.
    func deleteMutation() throws(FirestoreErrorCode) -> Mutation {
        let key = try self.key.get()
        do throws(ModelError) {
            return try mutationBuilder.delete(key)
        } catch {
            throw FirestoreErrorCode(error)
        }
    }

    /// `mergeFields` elements: dotted strings or ``FieldPath``s.
    static func fieldPaths(_ fields: [Any]) throws(FirestoreErrorCode) -> [CairnModel.FieldPath] {
        try fields.map { field throws(FirestoreErrorCode) in
            switch field {
            case let string as String: return try FieldPath.dotted(string).get()
            case let path as FieldPath: return try path.parsed.get()
            default:
                throw FirestoreErrorCode(
                    .invalidArgument,
                    "Field paths in mergeFields must be Strings or FieldPaths, but one is \(type(of: field)).")
            }
        }
    }
}

extension Firestore {
    /// Builds mutations and writes them, reporting a build error or the client's result to `completion` on the
    /// callback queue.
    func write(completion: ((Error?) -> Void)?, _ build: () throws(FirestoreErrorCode) -> [Mutation]) {
        let mutations: [Mutation]
        do throws(FirestoreErrorCode) {
            mutations = try build()
        } catch {
            complete(completion, error)
            return
        }
        write(mutations, completion: completion)
    }

    /// Writes already built mutations; an empty list (an empty batch) succeeds without reaching the client.
    func write(_ mutations: [Mutation], completion: ((Error?) -> Void)?) {
        if mutations.isEmpty {
            complete(completion, nil)
            return
        }
        switch client() {
        case .failure(let error):
            complete(completion, error)
        case .success(let client):
            let box = UncheckedSendable(completion)
            client.write(mutations: mutations) { error in self.complete(box.value, error) }
        }
    }
}
