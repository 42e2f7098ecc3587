import Testing
@testable import CairnModel

/// Laws that must hold for every value, checked on seeded random values of every case nested to depth 4.
@Suite("Value order and equality laws (random values)")
struct ValuePropertyTests {
    /// The same value rebuilt from scratch: maps re-inserted in reverse key order, strings copied.
    static func rebuilt(_ value: Value) -> Value {
        switch value {
        case .array(let values):
            return .array(values.map(rebuilt))
        case .map(let object):
            var fields: [String: Value] = [:]
            for key in object.fields.keys.sorted().reversed() { fields[key] = rebuilt(object.fields[key]!) }
            return .map(ObjectValue(fields))
        case .string(let string):
            return .string(String(decoding: Array(string.utf8), as: UTF8.self))
        default:
            return value
        }
    }

    @Test("every value equals itself and a rebuilt copy, compares 0 with both, and hashes alike")
    func reflexive() {
        var generator = ValueGenerator(seed: 11)
        for _ in 0..<1500 {
            let value = generator.value()
            let copy = Self.rebuilt(value)
            #expect(value == value)
            #expect(value == copy)
            #expect(Value.compare(value, copy) == 0)
            #expect(value.hashValue == copy.hashValue)
        }
    }

    @Test("compare is antisymmetric, and == implies compare == 0 and equal hashes")
    func antisymmetricAndConsistent() {
        var generator = ValueGenerator(seed: 12)
        var equalPairs = 0
        for _ in 0..<4000 {
            let a = generator.scalarOrNested(maxDepth: 2)
            let b = generator.scalarOrNested(maxDepth: 2)
            let order = Value.compare(a, b)
            #expect([-1, 0, 1].contains(order))
            #expect(Value.compare(b, a) == -order, "\(a) vs \(b)")
            if a == b {
                equalPairs += 1
                #expect(order == 0, "\(a) == \(b) but compare says \(order)")
                #expect(a.hashValue == b.hashValue)
            }
            if order != 0 { #expect(a != b) }
        }
        #expect(equalPairs > 20)  // the pools make ties common enough to exercise the law
    }

    @Test("compare is transitive on random triples")
    func transitiveTriples() {
        var generator = ValueGenerator(seed: 13)
        for _ in 0..<3000 {
            let values = (0..<3).map { _ in generator.scalarOrNested(maxDepth: 2) }
            for a in values {
                for b in values {
                    for c in values where Value.compare(a, b) <= 0 && Value.compare(b, c) <= 0 {
                        let strict = Value.compare(a, b) < 0 || Value.compare(b, c) < 0
                        #expect(strict ? Value.compare(a, c) < 0 : Value.compare(a, c) == 0, "\(a), \(b), \(c)")
                    }
                }
            }
        }
    }

    @Test("a list sorted with compare is ordered pairwise (a total order, not just locally)")
    func sortedListIsPairwiseOrdered() {
        var generator = ValueGenerator(seed: 14)
        let sorted = (0..<300).map { _ in generator.value() }.sorted { Value.compare($0, $1) < 0 }
        for i in sorted.indices {
            for j in sorted.indices where i < j {
                #expect(Value.compare(sorted[i], sorted[j]) <= 0)
            }
        }
    }

    @Test("canonical strings are equal exactly when the values are ==")
    func canonicalStringMatchesEquality() {
        var generator = ValueGenerator(seed: 15)
        for _ in 0..<3000 {
            let a = generator.scalarOrNested(maxDepth: 2)
            let b = generator.chance(1, in: 4) ? Self.rebuilt(a) : generator.scalarOrNested(maxDepth: 2)
            #expect((a.canonicalString == b.canonicalString) == (a == b), "\(a) vs \(b)")
        }
    }
}
