import CairnDatabaseCore
import Foundation

/// Numbers from the database's integers and doubles, exactly: an integer type never takes a fraction or a value
/// out of its range, a boolean is never a number.
enum DatabaseNumberDecoding {
    /// The value of `decoder` as `T` when `T` is a numeric type; nil when it is not one.
    static func number<T>(_ type: T.Type, from decoder: DatabaseValueDecoder) throws -> T? {
        switch T.self {
        case is Double.Type: return try double(decoder) as? T
        case is Float.Type: return Float(try double(decoder)) as? T
        case is Int.Type: return try exact(Int.self, decoder) as? T
        case is Int8.Type: return try exact(Int8.self, decoder) as? T
        case is Int16.Type: return try exact(Int16.self, decoder) as? T
        case is Int32.Type: return try exact(Int32.self, decoder) as? T
        case is Int64.Type: return try exact(Int64.self, decoder) as? T
        case is UInt.Type: return try exact(UInt.self, decoder) as? T
        case is UInt8.Type: return try exact(UInt8.self, decoder) as? T
        case is UInt16.Type: return try exact(UInt16.self, decoder) as? T
        case is UInt32.Type: return try exact(UInt32.self, decoder) as? T
        case is UInt64.Type: return try exact(UInt64.self, decoder) as? T
        default: return nil
        }
    }

    private static func double(_ decoder: DatabaseValueDecoder) throws -> Double {
        switch decoder.value {
        case .int(let number): return Double(number)
        case .double(let number): return number
        case .string(let string):
            if case .convertFromString(let positive, let negative, let nan) = decoder.options.float {
                if string == positive { return .infinity }
                if string == negative { return -.infinity }
                if string == nan { return .nan }
            }
            throw decoder.mismatch(Double.self)
        default: throw decoder.mismatch(Double.self)
        }
    }

    private static func exact<I: BinaryInteger>(_ type: I.Type, _ decoder: DatabaseValueDecoder) throws -> I {
        let exact: I?
        let text: String
        switch decoder.value {
        case .int(let number): (exact, text) = (I(exactly: number), String(number))
        case .double(let number): (exact, text) = (I(exactly: number), String(number))
        default: throw decoder.mismatch(I.self)
        }
        guard let exact else { throw decoder.corrupted("The number \(text) does not fit in \(I.self)") }
        return exact
    }
}
