import CairnCore
import Foundation

/// Data bundles: documents and named queries built by a server SDK (for example the Admin SDK's
/// `FirestoreBundle`), loaded into the cache without a round trip per query. Loaded bundles and named queries
/// are kept in the cache: after a restart on the same persistent cache, `getQuery(named:)` still finds the
/// queries, and the same bundle loads again as already loaded (success at once, nothing changes).
///
/// ```swift
/// let progress = try await db.loadBundle(bundleData)      // progress.state == .success
/// if let query = await db.getQuery(named: "latest-stories") {
///     let stories = try await query.getDocuments(source: .cache)
/// }
/// ```
extension Firestore {
    /// Loads a bundle into the cache; observe the returned task for progress. Without a completion, a failure is
    /// reported to `UnhandledErrors` (the observers see the `error` state).
    @discardableResult
    public func loadBundle(_ bundleData: Data) -> LoadBundleTask {
        loadBundle(InputStream(data: bundleData), completion: nil)
    }

    /// Loads a bundle into the cache; `completion` runs once, with the final progress, and the error when it
    /// failed (`invalidArgument` naming the problem for a malformed bundle or one of another database), after the
    /// task's observers.
    @discardableResult
    public func loadBundle(
        _ bundleData: Data, completion: ((LoadBundleTaskProgress?, Error?) -> Void)?
    ) -> LoadBundleTask {
        loadBundle(InputStream(data: bundleData), completion: completion)
    }

    /// Loads a bundle read from `bundleStream` (which the load then owns and reads on Firestore's worker queue);
    /// observe the returned task for progress.
    @discardableResult
    public func loadBundle(_ bundleStream: InputStream) -> LoadBundleTask {
        loadBundle(bundleStream, completion: nil)
    }

    /// Loads a bundle read from `bundleStream`; `completion` runs once, with the final progress and the error
    /// when it failed, after the task's observers.
    @discardableResult
    public func loadBundle(
        _ bundleStream: InputStream, completion: ((LoadBundleTaskProgress?, Error?) -> Void)?
    ) -> LoadBundleTask {
        let task = LoadBundleTask()
        task.setCompletion { progress, error in
            guard progress.state != .inProgress else { return }
            if let completion {
                completion(progress, error)
            } else if let error {
                UnhandledErrors.report(error)
            }
        }
        let report: @Sendable (BundleLoadProgress, FirestoreErrorCode?) -> Void = { progress, error in
            self.deliver { task.report(LoadBundleTaskProgress(progress), error: error) }
        }
        switch client() {
        case .failure(let error): report(BundleLoadProgress.unknown.failed, error)
        case .success(let client): client.loadBundle(bundleStream, progress: report)
        }
        return task
    }

    /// Reads the query a loaded bundle saved under `name` from the cache; `completion` gets nil when there is
    /// none. The query carries the bundle's filters, order and limit (`limit(toLast:)` included).
    public func getQuery(named name: String, completion: @escaping (Query?) -> Void) {
        let box = UncheckedSendable(completion)
        switch client() {
        case .failure:
            deliver { box.value(nil) }
        case .success(let client):
            client.namedQuery(name) { query in
                self.deliver { box.value(query.map { Query(firestore: self, state: .success($0)) }) }
            }
        }
    }
}
