import CairnCoreTestSupport
import CairnCore
import Cairn
import Foundation
import Testing

/// A write the cache cannot read back is never accepted: every write form refuses, with `invalidArgument` and
/// Firebase's or the server's message, what Firestore would refuse (depth, size, IDs, field names, nested
/// arrays), and deep input is refused without exhausting the stack. Offline, on a persistent cache.
@Suite("End to end: write validation")
struct EndToEndWriteValidationTests {
    /// The outcomes of the same data through setData, both merges, updateData and a batch.
    func outcomesInEveryForm(_ env: EndToEndEnvironment, field: String, _ value: Any) async throws -> [Error?] {
        let ref = env.db.collection("deep").document("d")
        var outcomes: [Error?] = []
        outcomes.append(try await writeOutcome(env) { ref.setData([field: value], completion: $0) })
        outcomes.append(try await writeOutcome(env) { ref.setData([field: value], merge: true, completion: $0) })
        outcomes.append(try await writeOutcome(env) { ref.setData([field: value], mergeFields: [field], completion: $0) })
        outcomes.append(try await writeOutcome(env) { ref.updateData([field: value], completion: $0) })
        outcomes.append(try await writeOutcome(env) { done in
            env.db.batch().setData([field: value], forDocument: ref).commit(completion: done)
        })
        return outcomes
    }

    @Test("Maps and arrays nest at most 20 levels in every write form; 21 and 101 levels are invalidArgument")
    func depthLimit() async throws {
        let env = EndToEndEnvironment()
        for arrays in [false, true] {
            for outcome in try await outcomesInEveryForm(env, field: "f", DeepData.nested(20, arrays: arrays)) {
                #expect(outcome == nil, "20 levels are allowed: \(String(describing: outcome))")
            }
            for levels in [21, 101] {
                for outcome in try await outcomesInEveryForm(env, field: "f", DeepData.nested(levels, arrays: arrays)) {
                    // Firebase's messages do not locate values inside arrays.
                    expectInvalidArgument(outcome, "Invalid data.", "exceeds the maximum depth of 20", arrays ? "Invalid data." : "(found in field f.n.n")
                }
            }
        }
        try await env.restart()
        let stored = try await env.db.collection("deep").document("d").getDocument(source: .cache)
        #expect(DeepData.depth(of: try #require(stored.get("f"))) == 20)
        await env.tearDown()
    }

    @Test("5,000 and 100,000 levels are invalidArgument in every write form, not a stack overflow")
    func veryDeepInput() async throws {
        let env = EndToEndEnvironment()
        for levels in [5_000, 100_000] {
            var value: Any? = DeepData.nested(levels, arrays: levels == 5_000)
            for outcome in try await outcomesInEveryForm(env, field: "f", value!) {
                expectInvalidArgument(outcome, "exceeds the maximum depth of 20")
            }
            DeepData.release(&value)
        }
        let reopened = try await env.db.collection("deep").getDocuments(source: .cache)
        #expect(reopened.isEmpty)
        await env.tearDown()
    }

    @Test("An update's dotted path counts toward the depth: a value under 101 maps never reaches the outbox")
    func updatePathDepth() async throws {
        let env = EndToEndEnvironment()
        let ref = env.db.collection("deep").document("d")
        ref.setData(["x": 1], completion: nil)
        let deepest = (0..<21).map { "p\($0)" }.joined(separator: ".")
        #expect(try await writeOutcome(env) { ref.updateData([deepest: 1], completion: $0) } == nil)
        for segments in [22, 102] {
            let path = FieldPath((0..<segments).map { "p\($0)" })
            let outcome = try await writeOutcome(env) { ref.updateData([path: 1], completion: $0) }
            expectInvalidArgument(outcome, "exceeds the maximum depth of 20")
        }
        try await env.restart()
        let stored = try await env.db.collection("deep").document("d").getDocument(source: .cache)
        #expect(stored.get(FieldPath((0..<21).map { "p\($0)" })) as? Int64 == 1)
        await env.tearDown()
    }

    @Test("Codable values nested too deep are invalidArgument from setData(from:), not a stack overflow")
    func deepCodable() async throws {
        let env = EndToEndEnvironment()
        let ref = env.db.collection("deep").document("chain")
        var accepted = DeepData.Chain.of(21)  // the document and 20 nested maps
        try ref.setData(from: accepted!)
        DeepData.Chain.release(&accepted)
        for links in [22, 5_000, 100_000] {
            var chain = DeepData.Chain.of(links)
            do {
                try ref.setData(from: chain!)
                Issue.record("a chain of \(links) links was accepted")
            } catch {
                expectInvalidArgument(error, "exceeds the maximum depth of 20", "(found in field next.next")
            }
            DeepData.Chain.release(&chain)
        }
        try await env.restart()
        let stored = try await env.db.collection("deep").document("chain").getDocument(source: .cache)
        #expect(DeepData.depth(of: try #require(stored.data())) == 20)
        await env.tearDown()
    }

    @Test("Documents of exactly 1 MiB are accepted and read back; 1 MiB + 1, an update past 1 MiB and 17 MB are invalidArgument")
    func sizeLimit() async throws {
        let env = EndToEndEnvironment()
        let ref = env.db.collection("c").document("d")  // name size 20: 20 + 2 × (2 + 524,260) + 32 = 1 MiB
        let half = String(repeating: "x", count: 524_259)
        #expect(try await writeOutcome(env) { ref.setData(["a": half, "b": half], completion: $0) } == nil)
        let tooBig = try await writeOutcome(env) { ref.setData(["a": half, "b": half + "x"], completion: $0) }
        expectInvalidArgument(
            tooBig, "Document 'c/d' cannot be written because its size (1,048,577 bytes) exceeds the maximum allowed "
                + "size of 1,048,576 bytes.")
        // Only the local view knows the result of these: the stored 1 MiB document plus one more byte.
        let grown = try await writeOutcome(env) { ref.updateData(["b": half + "x"], completion: $0) }
        expectInvalidArgument(grown, "cannot be written because its size (1,048,577 bytes)")
        let merged = try await writeOutcome(env) { ref.setData(["c": 1], merge: true, completion: $0) }
        expectInvalidArgument(merged, "exceeds the maximum allowed size of 1,048,576 bytes")
        let huge = String(repeating: "y", count: 17_000_000)
        for outcome in try await outcomesInEveryForm(env, field: "big", huge) {
            expectInvalidArgument(outcome, "exceeds the maximum allowed size of 1,048,576 bytes")
        }
        try await env.restart()
        let stored = try await env.db.collection("c").document("d").getDocument(source: .cache)
        #expect(stored.get("b") as? String == half)
        #expect(stored.get("c") == nil)
        await env.tearDown()
    }

    @Test("A batch too large to store as one cache record is invalidArgument, not unavailable")
    func oversizedBatch() async throws {
        let env = EndToEndEnvironment()
        let value = String(repeating: "z", count: 1_000_000)
        let outcome = try await writeOutcome(env) { done in
            let batch = env.db.batch()
            for index in 0..<20 { batch.setData(["v": value], forDocument: env.db.collection("big").document("\(index)")) }
            batch.commit(completion: done)
        }
        expectInvalidArgument(outcome, "This write batch is too large to store", "split the batch")
        #expect(try await env.db.collection("big").getDocuments(source: .cache).isEmpty)
        await env.tearDown()
    }

    @Test("Reserved, '.', '..' and over-long document IDs are refused by set, update, delete and batches")
    func documentIDs() async throws {
        let env = EndToEndEnvironment()
        let collection = env.db.collection("ids")
        for id in ["__x__", ".", "..", String(repeating: "i", count: 1_501)] {
            let ref = collection.document(id)
            let outcomes = [
                try await writeOutcome(env) { ref.setData(["a": 1], completion: $0) },
                try await writeOutcome(env) { ref.updateData(["a": 1], completion: $0) },
                try await writeOutcome(env) { ref.delete(completion: $0) },
                try await writeOutcome(env) { env.db.batch().deleteDocument(ref).commit(completion: $0) },
            ]
            for outcome in outcomes { expectInvalidArgument(outcome, "Invalid document ID") }
        }
        let longest = String(repeating: "i", count: 1_500)
        #expect(try await writeOutcome(env) { collection.document(longest).setData(["a": 1], completion: $0) } == nil)
        #expect(try await writeOutcome(env) { collection.document("__id42__").setData(["a": 1], completion: $0) } == nil)
        try await env.restart()
        #expect(try await env.db.collection("ids").getDocuments(source: .cache).count == 2)
        await env.tearDown()
    }

    @Test("Reserved and empty field names are refused at any depth and in update paths")
    func fieldNames() async throws {
        let env = EndToEndEnvironment()
        let ref = env.db.collection("names").document("d")
        ref.setData(["ok": 1], completion: nil)
        let outcomes = [
            try await writeOutcome(env) { ref.setData(["__x__": 1], completion: $0) },
            try await writeOutcome(env) { ref.setData(["": 1], completion: $0) },
            try await writeOutcome(env) { ref.setData(["a": ["b": ["__c__": 1]]], merge: true, completion: $0) },
            try await writeOutcome(env) { ref.setData(["list": [["": 1]]], completion: $0) },
            try await writeOutcome(env) { ref.updateData(["a.__b__": 1], completion: $0) },
            try await writeOutcome(env) { ref.updateData([FieldPath(["a", ""]): 1], completion: $0) },
        ]
        for outcome in outcomes {
            #expect(firestoreCode(outcome) == .invalidArgument, "\(String(describing: outcome))")
        }
        #expect(try await writeOutcome(env) { ref.setData(["__": 1, "_a_": 2], completion: $0) } == nil)
        await env.tearDown()
    }

    @Test("An array directly inside an array is refused; inside a map inside an array it is accepted")
    func nestedArrays() async throws {
        let env = EndToEndEnvironment()
        let ref = env.db.collection("arrays").document("d")
        for data: [String: Any] in [["a": [[1]]], ["a": [1, ["b": 2], []]], ["m": ["a": [["x"]]]]] {
            expectInvalidArgument(try await writeOutcome(env) { ref.setData(data, completion: $0) }, "Nested arrays are not supported")
        }
        #expect(try await writeOutcome(env) { ref.setData(["a": [["m": [1, 2]]]], completion: $0) } == nil)
        try await env.restart()
        let stored = try await env.db.collection("arrays").document("d").getDocument(source: .cache)
        let element = try #require((stored.get("a") as? [Any])?.first as? [String: Any])
        #expect(element["m"] as? [Int64] == [1, 2])
        await env.tearDown()
    }
}
