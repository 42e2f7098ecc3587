import Testing
@testable import CairnModel

@Suite("Value canonical strings")
struct ValueCanonicalStringTests: ValueFixtures {
    static let scalarCases: [(Value, String)] = [
        (.null, "null"),
        (.boolean(true), "true"),
        (.boolean(false), "false"),
        (.integer(-42), "-42"),
        (.integer(.min), "-9223372036854775808"),
        (.double(1), "1.0"),
        (.double(-0.0), "-0.0"),
        (.double(1e100), "1e+100"),
        (.double(.nan), "nan"),
        (.double(-.nan), "nan"),
        (.double(-.infinity), "-inf"),
        (.timestamp(Timestamp(seconds: -5, nanoseconds: 7)), "time(-5,7)"),
        (.serverTimestamp(localWriteTime: Timestamp(seconds: 1, nanoseconds: 2), previous: .null),
         "serverTimestamp(1,2)"),
        (.bytes([0x00, 0xAB, 0xFF]), "<00abff>"),
        (.bytes([]), "<>"),
        (.geoPoint(GeoPoint(latitude: -0.0, longitude: 12.5)), "geo(0.0,12.5)"),
    ]

    @Test(
        "scalars have the documented forms",
        arguments: scalarCases
    )
    func scalars(value: Value, expected: String) {
        #expect(value.canonicalString == expected)
    }

    @Test("strings are quoted, with quotes, backslashes and every non-ASCII scalar escaped")
    func strings() {
        #expect(Value.string("hi").canonicalString == #""hi""#)
        #expect(Value.string(#"a"b\c"#).canonicalString == #""a\"b\\c""#)
        #expect(Value.string("é\n").canonicalString == #""\u{e9}\u{a}""#)
        #expect(Value.string("e\u{301}").canonicalString == #""e\u{301}""#)
        #expect(Value.string("1").canonicalString != Value.integer(1).canonicalString)
    }

    @Test("references name the project, database and path")
    func references() {
        #expect(reference("users/ada").canonicalString == #"ref("p/(default)/users/ada")"#)
        #expect(reference("users/ada", database: "db2").canonicalString == #"ref("p/db2/users/ada")"#)
    }

    @Test("maps list entries in UTF-8 key order; keys that are not identifiers are quoted")
    func maps() {
        let object = ObjectValue([
            "b": .double(1), "a": .array([.string("x"), .integer(1)]), "a b": .null, "\u{FFFF}": .null,
            "\u{10000}": .null, "_9": .map(ObjectValue()),
        ])
        #expect(
            Value.map(object).canonicalString
                == #"{_9:{},a:["x",1],"a b":null,b:1.0,"\u{ffff}":null,"\u{10000}":null}"#
        )
    }

    @Test("integers and doubles of the same value have different canonical strings")
    func numbersStayDistinct() {
        for number in [0.0, 1, -7, 0x1p60, 1e18] {
            #expect(Value.double(number).canonicalString != Value.integer(Int64(number)).canonicalString)
        }
    }

    @Test("canonical strings are ASCII")
    func ascii() {
        var generator = ValueGenerator(seed: 21)
        for _ in 0..<500 {
            #expect(generator.value().canonicalString.utf8.allSatisfy { $0 < 0x80 })
        }
    }
}
