// write_batched_500: local writes (the outbox) in WriteBatches of 500 `set`s of new ~1 KiB documents, each
// batch committed as the engine's client commits, into a new, empty cache per run. Opening and closing the
// cache are not timed.

import CairnModel

/// Writes `batches` batches of 500 documents per run.
final class WriteBatchWorkload: QueryWorkload {
    let name = "write_batched_500"
    let unit = "docs/s"
    let higherIsBetter = true
    let note: String
    private let scratch: ScratchDirectory
    private let batches: [[Mutation]]

    static let batchSize = 500

    init(batchCount: Int, corpus: QueryCorpus, scratch: ScratchDirectory) {
        self.scratch = scratch
        batches = (0..<batchCount).map { batch in
            (0..<Self.batchSize).map { offset in
                let document = corpus.document(at: (batch * Self.batchSize + offset) * 10)   // orders
                let key = DocumentKey(path: ResourcePath(segments: ["drafts", document.key.documentID]))
                return Mutation.set(key, value: document.data)
            }
        }
        note = "\(batchCount) batches of \(Self.batchSize) sets of ~1 KiB documents per run, into an empty cache. "
            + "Cairn: writeLocally, one log append per batch, synced (fdatasync) behind it by group commit as the "
            + "client core does (a power loss may lose the last batches, a process crash none). SQLite: Android's writeLocally "
            + "transaction (mutations, document_mutations, collection_parents, document_overlays rows), WAL with "
            + "synchronous=NORMAL: commits are not synced, only checkpoints are. LevelDB: iOS's WriteLocally "
            + "write batch (mutation, document_mutation, collection_parent, document_overlays and its three index "
            + "rows), sync=false as iOS writes: not synced."
    }

    func prepare(_ engine: any QueryEngine) throws {}

    func run(_ engine: any QueryEngine, number: Int) throws -> QueryRun {
        let directory = try scratch.freshDirectory("writes/\(engine.name)-\(number)")
        let cache = try engine.open(directory)
        let elapsed = try QueryHarness.milliseconds {
            for batch in batches { try cache.write(batch) }
        }
        let draft = try Query(path: ResourcePath(segments: ["drafts"])).limited(to: 1)
        guard try cache.execute(draft).count == 1 else { throw BenchError("\(engine.name): the written drafts are missing") }
        try cache.close()
        try scratch.remove(directory)
        return QueryRun(values: [Double(batches.count * Self.batchSize) / (elapsed / 1000)])
    }
}
