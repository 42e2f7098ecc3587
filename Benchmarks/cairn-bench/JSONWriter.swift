// A minimal JSON writer for generated documents: appends straight into a byte array, places commas, and
// formats numbers without going through String or Double.

import CairnTestSupport

/// Writes one JSON value into `bytes`. Call `key` before each member of an object; values, `open` and
/// `close` place the separating commas themselves.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    private var needsComma = false

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Starts an object (`{`) or an array (`[`).
    mutating func open(_ bracket: Unicode.Scalar) {
        separate()
        bytes.append(UInt8(bracket.value))
        needsComma = false
    }

    /// Ends the innermost object (`}`) or array (`]`).
    mutating func close(_ bracket: Unicode.Scalar) {
        bytes.append(UInt8(bracket.value))
        needsComma = true
    }

    mutating func key(_ name: String) {
        separate()
        quoted(name.utf8)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value; the generator only uses characters that need no escaping.
    mutating func string(_ value: String) {
        separate()
        quoted(value.utf8)
        needsComma = true
    }

    mutating func bytesString(_ value: [UInt8]) {
        separate()
        quoted(value)
        needsComma = true
    }

    mutating func boolean(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    mutating func integer(_ value: Int) {
        separate()
        digits(value)
        needsComma = true
    }

    /// `value / scale` written with as many fraction digits as `scale` (a power of ten) has zeros.
    mutating func decimal(_ value: Int, scale: Int) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = abs(value)
        digits(magnitude / scale)
        bytes.append(UInt8(ascii: "."))
        var fraction = magnitude % scale
        var divisor = scale / 10
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor))
            fraction %= divisor
            divisor /= 10
        }
        needsComma = true
    }

    /// A string of random vocabulary words that ends (closing quote included) at most at byte `end` of the
    /// document and within one word of it, or after one word when the document is already that long.
    mutating func text(until end: Int, rng: inout SeededRandom) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var first = true
        while true {
            let word = Vocabulary.words.randomElement(using: &rng)!.utf8
            let room = end - 1 - bytes.count - (first ? 0 : 1)
            if !first && word.count > room { break }
            if !first { bytes.append(UInt8(ascii: " ")) }
            bytes.append(contentsOf: word)
            first = false
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private mutating func quoted(_ text: some Collection<UInt8>) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text)
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func digits(_ value: Int) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            digits(-value)
            return
        }
        if value >= 10 { digits(value / 10) }
        bytes.append(UInt8(ascii: "0") + UInt8(value % 10))
    }
}
