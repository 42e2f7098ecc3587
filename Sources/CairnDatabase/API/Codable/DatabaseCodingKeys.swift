import Foundation

/// The coding keys the database coders make themselves, key-name conversions and how paths read in messages.
enum DatabaseCodingKeys {
    /// An array element.
    struct Index: CodingKey {
        let intValue: Int?
        let stringValue: String

        init(_ index: Int) {
            intValue = index
            stringValue = String(index)
        }

        init?(stringValue: String) { nil }
        init?(intValue: Int) { self.init(intValue) }
    }

    /// A key as found in the data.
    struct Name: CodingKey {
        let stringValue: String
        var intValue: Int? { Int(stringValue) }

        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { self.init(String(intValue)) }
    }

    /// A superclass's encoding (`superEncoder()` / `superDecoder()`): the key `super`.
    struct Super: CodingKey {
        static let name = "super"
        var stringValue: String { Self.name }
        var intValue: Int? { nil }

        init() {}
        init?(stringValue: String) { if stringValue != Self.name { return nil } }
        init?(intValue: Int) { nil }
    }

    /// A coding path as a database path relative to where the coding started (`profile/emails/0`, `/` when empty).
    static func describe<Path: Collection<any CodingKey>>(_ codingPath: Path) -> String {
        codingPath.isEmpty ? "/" : codingPath.map(\.stringValue).joined(separator: "/")
    }

    /// `userID` → `user_id`, `imageURLString` → `image_url_string`: an underscore before each capital that follows
    /// a non-capital, or that starts a word after a run of capitals.
    static func snakeCase(_ name: String) -> String {
        let characters = Array(name)
        var result = ""
        for (offset, character) in characters.enumerated() {
            if character.isUppercase, offset > 0 {
                let previous = characters[offset - 1]
                let startsWord = offset + 1 < characters.count && characters[offset + 1].isLowercase
                if previous != "_" && (!previous.isUppercase || startsWord) { result += "_" }
            }
            result += character.lowercased()
        }
        return result
    }

    /// `user_id` → `userId`: leading and trailing underscores kept, the words between joined in camel case.
    static func camelCase(_ name: String) -> String {
        guard let first = name.firstIndex(where: { $0 != "_" }), let last = name.lastIndex(where: { $0 != "_" }) else { return name }
        let words = name[first...last].split(separator: "_")
        guard let head = words.first, words.count > 1 else { return name }
        let joined = head.lowercased() + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined()
        return String(name[..<first]) + joined + String(name[name.index(after: last)...])
    }
}
