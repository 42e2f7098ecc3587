import CairnCore
import CairnModel
import CairnLogging
import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import SwiftProtobuf

/// The one-shot calls: Commit, BatchGetDocuments and RunQuery (gets from the server), RunAggregationQuery (count,
/// sum, average on the server), BeginTransaction and Rollback (server-SDK-style transactions: begin, read with the
/// id, commit with the id or roll back).
///
/// ```swift
/// let transaction = try await rpc.beginTransaction()
/// let read = try await rpc.lookup([key], transactionID: transaction)
/// _ = try await rpc.commit([.set(key, value: newValue)], transactionID: transaction)
/// ```
extension FirestoreRPC {
    /// The server's acknowledgement of a commit: the commit time (the zero timestamp when the server sent none,
    /// see `Serializer+Commit.swift`) and one result per mutation, in order.
    package struct CommitAck: Sendable, Hashable {
        package var commitVersion: Timestamp
        package var results: [MutationResult]
    }

    /// Commits `mutations` atomically (inside `transactionID` when given).
    package func commit(
        _ mutations: [Mutation], transactionID: [UInt8]? = nil
    ) async throws(FirestoreErrorCode) -> CommitAck {
        var request = Google_Firestore_V1_CommitRequest()
        request.database = databaseName
        request.writes = try mutations.map { (mutation) throws(FirestoreErrorCode) in try serializer.encode(mutation) }
        if let transactionID { request.transaction = Data(transactionID) }
        let response = try await call { stub, metadata in try await stub.commit(request, metadata: metadata) }
        return try serializer.decodeCommitResponse(response, writeCount: mutations.count)
    }

    /// Reads documents by key: found documents and `noDocument` for missing ones, in the order of `keys`.
    package func lookup(
        _ keys: [DocumentKey], transactionID: [UInt8]? = nil
    ) async throws(FirestoreErrorCode) -> [Document] {
        guard !keys.isEmpty else { return [] }
        var request = Google_Firestore_V1_BatchGetDocumentsRequest()
        request.database = databaseName
        request.documents = keys.map { serializer.name(for: $0) }
        if let transactionID { request.transaction = Data(transactionID) }
        let responses = try await call { stub, metadata in
            try await stub.batchGetDocuments(request, metadata: metadata) { response in
                var messages: [Google_Firestore_V1_BatchGetDocumentsResponse] = []
                for try await message in response.messages { messages.append(message) }
                return messages
            }
        }
        var byKey: [DocumentKey: Document] = [:]
        for response in responses {
            let document = try serializer.decodeBatchGetResponse(response)
            byKey[document.key] = document
        }
        return try keys.map { (key) throws(FirestoreErrorCode) in
            guard let document = byKey[key] else {
                throw FirestoreSerializer.malformed("BatchGetDocuments returned no answer for \(key)")
            }
            return document
        }
    }

    /// Runs `query` once on the server and returns the matching documents in the query's order (a limit-to-last
    /// query runs flipped and its results are reversed back, as Firebase does).
    package func runQuery(
        _ query: Query, transactionID: [UInt8]? = nil
    ) async throws(FirestoreErrorCode) -> [Document] {
        let target = try serializer.encodeQueryTarget(query.target)
        var request = Google_Firestore_V1_RunQueryRequest()
        request.parent = target.parent
        request.structuredQuery = target.structuredQuery
        if let transactionID { request.transaction = Data(transactionID) }
        let responses = try await call { stub, metadata in
            try await stub.runQuery(request, metadata: metadata) { response in
                var messages: [Google_Firestore_V1_RunQueryResponse] = []
                for try await message in response.messages { messages.append(message) }
                return messages
            }
        }
        let documents = try serializer.decodeRunQueryResponses(responses)
        return query.hasLimitToLast ? documents.reversed() : documents
    }

    /// Runs `aggregates` over the results of `query` on the server and returns their values keyed by alias (see
    /// `Serializer+Aggregation.swift`).
    package func runAggregationQuery(
        _ query: Query, aggregates: [AggregateField]
    ) async throws(FirestoreErrorCode) -> [String: Value] {
        let request = try serializer.encodeAggregationQuery(query, aggregates: aggregates)
        let responses = try await call { stub, metadata in
            try await stub.runAggregationQuery(request.message, metadata: metadata) { response in
                var messages: [Google_Firestore_V1_RunAggregationQueryResponse] = []
                for try await message in response.messages { messages.append(message) }
                return messages
            }
        }
        return try serializer.decodeAggregationResponses(responses, aggregates: request.aggregates)
    }

    /// Starts a transaction and returns its id (read-write unless `readOnly`).
    package func beginTransaction(readOnly: Bool = false) async throws(FirestoreErrorCode) -> [UInt8] {
        var request = Google_Firestore_V1_BeginTransactionRequest()
        request.database = databaseName
        if readOnly {
            request.options.readOnly = Google_Firestore_V1_TransactionOptions.ReadOnly()
        } else {
            request.options.readWrite = Google_Firestore_V1_TransactionOptions.ReadWrite()
        }
        let response = try await call { stub, metadata in try await stub.beginTransaction(request, metadata: metadata) }
        return [UInt8](response.transaction)
    }

    /// Abandons a transaction, releasing its locks.
    package func rollback(_ transactionID: [UInt8]) async throws(FirestoreErrorCode) {
        var request = Google_Firestore_V1_RollbackRequest()
        request.database = databaseName
        request.transaction = Data(transactionID)
        _ = try await call { stub, metadata in try await stub.rollback(request, metadata: metadata) }
    }

    /// Runs one call on the stub; see ``withMetadata(_:_:)``.
    private func call<Result: Sendable>(
        _ name: String = #function,
        _ body: (Google_Firestore_V1_Firestore.Client<HTTP2ClientTransport.Posix>, Metadata) async throws -> Result
    ) async throws(FirestoreErrorCode) -> Result {
        try await withMetadata(name) { metadata in try await body(stub, metadata) }
    }

    /// Runs `body` with fresh metadata and maps its failure to a ``FirestoreErrorCode``; `name` (the calling
    /// method) names a failure in the debug log. When the server answers `unauthenticated` to a token from the
    /// provider, `body` runs once more with a token the provider is asked to refresh (Firebase's
    /// `InvalidateToken`, then the retry); a second refusal is the call's error.
    func withMetadata<Result: Sendable>(
        _ name: String, _ body: (Metadata) async throws -> Result
    ) async throws(FirestoreErrorCode) -> Result {
        var attempt = 1
        while true {
            do {
                // The retry refreshes the token itself: another call may have consumed the invalidation.
                return try await body(try await metadata(forceRefresh: attempt > 1))
            } catch {
                let mapped = failure(error)
                CairnLogger.firestoreGRPC.debug("\(name) failed: \(mapped.code) \(mapped.message)")
                guard mapped.code == .unauthenticated, configuration.authTokenProvider != nil, attempt == 1 else {
                    throw mapped
                }
                attempt += 1
            }
        }
    }
}
