import Testing
@testable import CairnModel

@Suite("Transform: increment")
struct MutationIncrementTests: MutationTesting {
    static let table: [(previous: Value?, operand: Value, expected: Value)] = [
        (.integer(41), .integer(1), .integer(42)),
        (.integer(-3), .integer(-4), .integer(-7)),
        (.integer(.max), .integer(1), .integer(.max)),
        (.integer(.max - 1), .integer(5), .integer(.max)),
        (.integer(.min), .integer(-1), .integer(.min)),
        (.integer(.min + 1), .integer(-5), .integer(.min)),
        (.integer(.max), .integer(.min), .integer(-1)),
        (.integer(1), .double(0.5), .double(1.5)),
        (.double(1.5), .integer(1), .double(2.5)),
        (.double(0.1), .double(0.2), .double(0.1 + 0.2)),
        (.integer(.max), .double(1), .double(9_223_372_036_854_775_808.0)),
        (.double(.infinity), .integer(1), .double(.infinity)),
        (.double(.nan), .integer(1), .double(.nan)),
        (nil, .integer(3), .integer(3)),
        (.null, .double(2.5), .double(2.5)),
        (.string("12"), .integer(3), .integer(3)),
        (.array([.integer(1)]), .integer(3), .integer(3)),
        (.serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 0), previous: .integer(9)), .integer(1), .integer(1)),
    ]

    @Test("integer + integer stays an integer and saturates; any double makes a double; a non-number counts as 0",
          arguments: table)
    func localIncrement(previous: Value?, operand: Value, expected: Value) {
        let result = TransformOperation.increment(operand).applyToLocalView(previous: previous, localWriteTime: writeTime)
        #expect(result == expected)
    }

    @Test("the base of an increment is the current number, or integer 0 for anything else")
    func baseValue() {
        let increment = TransformOperation.increment(.integer(1))
        #expect(increment.computeBaseValue(.double(2.5)) == .double(2.5))
        #expect(increment.computeBaseValue(.integer(-4)) == .integer(-4))
        #expect(increment.computeBaseValue(nil) == .integer(0))
        #expect(increment.computeBaseValue(.string("7")) == .integer(0))
    }

    @Test("idempotent transforms need no base value")
    func noBaseValue() {
        #expect(TransformOperation.serverTimestamp.computeBaseValue(.integer(1)) == nil)
        #expect(TransformOperation.arrayUnion([.integer(1)]).computeBaseValue(.array([])) == nil)
        #expect(TransformOperation.arrayRemove([.integer(1)]).computeBaseValue(nil) == nil)
    }

    @Test("an acknowledged increment takes the server's result, not the local estimate")
    func remoteIncrement() {
        let result = TransformOperation.increment(.integer(1)).applyToRemoteDocument(
            previous: .integer(1), transformResult: .integer(10))
        #expect(result == .integer(10))
    }
}

@Suite("Transform: arrayUnion and arrayRemove")
struct MutationArrayTransformTests: MutationTesting {
    static let unions: [(previous: Value?, elements: [Value], expected: [Value])] = [
        (.array([.integer(1), .integer(2)]), [.integer(2), .integer(3)], [.integer(1), .integer(2), .integer(3)]),
        (.array([.integer(1)]), [.double(1.0)], [.integer(1), .double(1.0)]),
        (nil, [.integer(1), .integer(1)], [.integer(1)]),
        (.string("x"), [.integer(1)], [.integer(1)]),
        (.array([.integer(1), .integer(1)]), [.integer(1)], [.integer(1), .integer(1)]),
        (.array([.map(ObjectValue(["a": .integer(1)]))]), [.map(ObjectValue(["a": .integer(1)]))],
         [.map(ObjectValue(["a": .integer(1)]))]),
        (.array([.double(.nan)]), [.double(.nan)], [.double(.nan)]),
        (.array([.string("b")]), [], [.string("b")]),
    ]

    @Test("arrayUnion appends, in order, each element not already present; a non-array counts as empty",
          arguments: unions)
    func union(previous: Value?, elements: [Value], expected: [Value]) {
        let result = TransformOperation.arrayUnion(elements).applyToLocalView(previous: previous, localWriteTime: writeTime)
        #expect(result == .array(expected))
    }

    static let removals: [(previous: Value?, elements: [Value], expected: [Value])] = [
        (.array([.integer(1), .integer(2), .integer(1), .integer(3)]), [.integer(1)], [.integer(2), .integer(3)]),
        (.array([.integer(1), .double(1.0)]), [.integer(1)], [.double(1.0)]),
        (.array([.integer(1), .integer(2)]), [.integer(2), .integer(1)], []),
        (nil, [.integer(1)], []),
        (.integer(5), [.integer(5)], []),
        (.array([.string("a")]), [], [.string("a")]),
    ]

    @Test("arrayRemove removes every equal element (1 and 1.0 differ); a non-array becomes empty",
          arguments: removals)
    func remove(previous: Value?, elements: [Value], expected: [Value]) {
        let result = TransformOperation.arrayRemove(elements).applyToLocalView(previous: previous, localWriteTime: writeTime)
        #expect(result == .array(expected))
    }

    @Test("an acknowledged array transform is recomputed from the acknowledged document (the server sends null)")
    func remoteArrayTransform() {
        let union = TransformOperation.arrayUnion([.integer(2)])
        #expect(union.applyToRemoteDocument(previous: .array([.integer(1)]), transformResult: .null)
            == .array([.integer(1), .integer(2)]))
        let remove = TransformOperation.arrayRemove([.integer(1)])
        #expect(remove.applyToRemoteDocument(previous: .array([.integer(1)]), transformResult: .null) == .array([]))
    }
}

@Suite("Transform: serverTimestamp")
struct MutationServerTimestampTests: MutationTesting {
    /// The local write time and previous value of a pending server timestamp (`==` ignores the previous value).
    func pending(_ value: Value) -> (Timestamp, Value?)? {
        if case .serverTimestamp(let time, let previous) = value { return (time, previous) }
        return nil
    }

    @Test("a server timestamp is pending at the local write time and remembers the previous value")
    func remembersPrevious() throws {
        let result = try #require(pending(
            TransformOperation.serverTimestamp.applyToLocalView(previous: .integer(42), localWriteTime: writeTime)))
        #expect(result.0 == writeTime)
        #expect(result.1 == .integer(42))
    }

    @Test("a server timestamp over a missing field has no previous value")
    func noPrevious() throws {
        let result = try #require(pending(
            TransformOperation.serverTimestamp.applyToLocalView(previous: nil, localWriteTime: writeTime)))
        #expect(result.1 == nil)
    }

    @Test("a server timestamp over a pending one keeps the oldest previous value instead of nesting")
    func chainsFlatten() throws {
        let first = TransformOperation.serverTimestamp.applyToLocalView(previous: .string("v0"), localWriteTime: version(1))
        let second = TransformOperation.serverTimestamp.applyToLocalView(previous: first, localWriteTime: version(2))
        let third = TransformOperation.serverTimestamp.applyToLocalView(previous: second, localWriteTime: writeTime)
        let result = try #require(pending(third))
        #expect(result.0 == writeTime)
        #expect(result.1 == .string("v0"))
        let overMissing = TransformOperation.serverTimestamp.applyToLocalView(
            previous: .serverTimestamp(localWriteTime: version(1), previous: nil), localWriteTime: writeTime)
        #expect(try #require(pending(overMissing)).1 == nil)
    }

    @Test("an acknowledged server timestamp is the server's commit time")
    func remote() {
        let commit = Value.timestamp(version(99))
        let result = TransformOperation.serverTimestamp.applyToRemoteDocument(
            previous: .serverTimestamp(localWriteTime: writeTime, previous: nil), transformResult: commit)
        #expect(result == commit)
    }
}
