import CairnDatabaseCore
import Testing

@Suite("Key order")
struct KeyOrderTests {
    @Test("32-bit integer keys come before strings, in numeric order")
    func integersFirstNumerically() {
        let keys = ["b", "10", "a", "2", "-1", "1"]
        #expect(keys.sorted { KeyOrder.compare($0, $1) < 0 } == ["-1", "1", "2", "10", "a", "b"])
    }

    @Test("the 32-bit boundaries are integers, one past them is a string")
    func boundaries() {
        #expect(KeyOrder.int32Value(of: "-2147483648") == Int32.min)
        #expect(KeyOrder.int32Value(of: "2147483647") == Int32.max)
        #expect(KeyOrder.int32Value(of: "2147483648") == nil)
        #expect(KeyOrder.int32Value(of: "-2147483649") == nil)
        // "2147483648" orders as a string: after every integer, and after "1" as text would not matter.
        #expect(KeyOrder.compare("2147483647", "2147483648") < 0)
        #expect(KeyOrder.compare("2147483648", "3") > 0)
        #expect(KeyOrder.compare("-2147483648", "-1") < 0)
    }

    @Test("leading zeros parse as the number; equal numbers order the shorter key first")
    func leadingZeros() {
        #expect(KeyOrder.int32Value(of: "01") == 1)
        #expect(KeyOrder.int32Value(of: "00000000000007") == 7)
        #expect(KeyOrder.compare("1", "01") < 0)
        #expect(KeyOrder.compare("01", "2") < 0)
        #expect(KeyOrder.compare("-0", "0") > 0)
    }

    @Test("non-numeric keys compare by UTF-16 code units")
    func codeUnitOrder() {
        #expect(KeyOrder.compare("A", "a") < 0)
        #expect(KeyOrder.compare("1a", "a") < 0)
        #expect(KeyOrder.compare("\u{FFFF}", "\u{1F600}") > 0)   // U+FFFF > the surrogate pair's first unit D83D
        #expect(KeyOrder.int32Value(of: "1.0") == nil)
        #expect(KeyOrder.int32Value(of: "-") == nil)
        #expect(KeyOrder.int32Value(of: "") == nil)
    }

    @Test("the sentinels bound every key")
    func sentinels() {
        for key in ["-2147483648", "a", "\u{FFFF}"] {
            #expect(KeyOrder.compare(KeyOrder.minName, key) < 0)
            #expect(KeyOrder.compare(KeyOrder.maxName, key) > 0)
        }
    }

    @Test("the order is a total order on random keys (antisymmetric and transitive)")
    func totalOrder() {
        let alphabet = ["0", "1", "9", "-", "a", "Z", "00", "2147483648", "-2147483648"]
        let keys = (0..<200).map { _ in (0..<Int.random(in: 1...3)).map { _ in alphabet.randomElement()! }.joined() }
        let sorted = keys.sorted { KeyOrder.compare($0, $1) < 0 }
        for (a, b) in zip(sorted, sorted.dropFirst()) {
            #expect(KeyOrder.compare(a, b) <= 0)
            #expect(KeyOrder.compare(b, a) >= 0)
        }
    }
}
