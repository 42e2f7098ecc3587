import CairnLocalStore

/// How far loading a bundle got (Firebase's `LoadBundleTaskProgress`): documents and bytes loaded against the
/// metadata's totals, and the state. The public `LoadBundleTaskProgress` shows it.
///
/// ```swift
/// BundleLoadProgress.initial(metadata)     // 0 of totalDocuments, inProgress
/// BundleLoadProgress.success(metadata)     // totalDocuments of totalDocuments, success
/// ```
package struct BundleLoadProgress: Sendable, Equatable {
    package enum State: Sendable, Equatable {
        case error
        case inProgress
        case success
    }

    package var documentsLoaded: Int
    package var totalDocuments: Int
    package var bytesLoaded: Int
    package var totalBytes: Int
    package var state: State

    package init(documentsLoaded: Int, totalDocuments: Int, bytesLoaded: Int, totalBytes: Int, state: State) {
        self.documentsLoaded = documentsLoaded
        self.totalDocuments = totalDocuments
        self.bytesLoaded = bytesLoaded
        self.totalBytes = totalBytes
        self.state = state
    }

    /// Before the metadata is read: nothing known yet (Firebase's default progress, which an early error reports).
    package static let unknown = BundleLoadProgress(
        documentsLoaded: 0, totalDocuments: 0, bytesLoaded: 0, totalBytes: 0, state: .inProgress)

    /// This progress with the error state: what a failed load reports, with the counts it reached.
    package var failed: BundleLoadProgress {
        var copy = self
        copy.state = .error
        return copy
    }

    /// Before the first document (Firebase's `InitialProgress`).
    package static func initial(_ metadata: BundleMetadata) -> BundleLoadProgress {
        BundleLoadProgress(
            documentsLoaded: 0, totalDocuments: metadata.totalDocuments, bytesLoaded: 0, totalBytes: metadata.totalBytes,
            state: .inProgress)
    }

    /// Loaded, or loaded before (Firebase's `SuccessProgress`): every document and byte counted.
    package static func success(_ metadata: BundleMetadata) -> BundleLoadProgress {
        BundleLoadProgress(
            documentsLoaded: metadata.totalDocuments, totalDocuments: metadata.totalDocuments,
            bytesLoaded: metadata.totalBytes, totalBytes: metadata.totalBytes, state: .success)
    }
}
