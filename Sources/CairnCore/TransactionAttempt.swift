import CairnModel

/// One attempt of a read-write transaction (Firebase's `core::Transaction`): reads go to the server through
/// the datastore and record each document's version; writes are buffered and committed together, each with a
/// precondition on the version read, and every document read but not written is verified. Transactions need
/// the network; they bypass the cache and the views. Used on the client's worker queue.
///
/// ```swift
/// transaction.lookup([key]) { result in
///     transaction.write(.set(key, value: newValue))
///     transaction.commit { error in ... }
/// }
/// ```
package final class TransactionAttempt {
    private let datastore: any Datastore
    /// The version each read saw; `nil` for a document that did not exist.
    private var readVersions: [DocumentKey: Timestamp?] = [:]
    private var mutations: [Mutation] = []
    private var writtenKeys = Set<DocumentKey>()
    /// The first misuse, reported by `commit`.
    private var lastError: FirestoreErrorCode?
    private var committed = false

    package init(datastore: any Datastore) {
        self.datastore = datastore
    }

    /// Reads `keys` from the server; the documents come back in any order, missing ones as `noDocument`.
    package func lookup(_ keys: [DocumentKey], completion: @escaping (Result<[Document], FirestoreErrorCode>) -> Void) {
        guard mutations.isEmpty else {
            let error = FirestoreErrorCode(
                .invalidArgument, "Firestore transactions require all reads to be executed before all writes.")
            lastError = lastError ?? error
            return completion(.failure(error))
        }
        datastore.lookup(keys: keys) { [self] result in
            if case .success(let documents) = result {
                for document in documents {
                    if let error = record(document) {
                        lastError = lastError ?? error
                        return completion(.failure(error))
                    }
                }
            }
            completion(result)
        }
    }

    /// Buffers `mutation`, with the precondition the reads call for: a set or delete of a document read must
    /// find the version read; an update of a document read as missing fails at commit.
    package func write(_ mutation: Mutation) {
        let key = mutation.key
        var precondition = mutation.precondition
        if !writtenKeys.contains(key), let read = readVersions[key] {
            switch mutation.kind {
            case .patch:
                if let read {
                    precondition = .updateTime(read)
                } else {
                    lastError = lastError ?? FirestoreErrorCode(.invalidArgument, "Can't update a document that doesn't exist.")
                }
            default:
                precondition = read.map { .updateTime($0) } ?? .exists(false)
            }
        }
        mutations.append(Self.withPrecondition(mutation, precondition))
        writtenKeys.insert(key)
    }

    /// Commits the buffered writes and the verifications of unwritten reads, once.
    package func commit(completion: @escaping (FirestoreErrorCode?) -> Void) {
        if let lastError { return completion(lastError) }
        guard !committed else {
            return completion(FirestoreErrorCode(.failedPrecondition, "A transaction can be committed only once."))
        }
        committed = true
        var all = mutations
        for (key, version) in readVersions.sorted(by: { $0.key < $1.key }) where !writtenKeys.contains(key) {
            all.append(.verify(key, precondition: version.map { .updateTime($0) } ?? .exists(false)))
        }
        datastore.commit(mutations: all, transactionID: nil) { result in
            if case .failure(let error) = result { completion(error) } else { completion(nil) }
        }
    }

    private func record(_ document: Document) -> FirestoreErrorCode? {
        let version: Timestamp? = document.exists ? document.version : nil
        if let existing = readVersions[document.key], existing != version {
            return FirestoreErrorCode(.aborted, "Document version changed between two reads.")
        }
        readVersions[document.key] = version
        return nil
    }

    private static func withPrecondition(_ mutation: Mutation, _ precondition: Precondition) -> Mutation {
        switch mutation.kind {
        case .set(let value):
            .set(mutation.key, value: value, precondition: precondition, transforms: mutation.fieldTransforms)
        case .patch(let value, let mask):
            .patch(mutation.key, value: value, mask: mask, precondition: precondition, transforms: mutation.fieldTransforms)
        case .delete:
            .delete(mutation.key, precondition: precondition)
        case .verify:
            .verify(mutation.key, precondition: precondition)
        }
    }
}
