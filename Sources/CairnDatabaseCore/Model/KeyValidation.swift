/// Firebase's limits on keys and paths: a key is 1 to 768 bytes of UTF-8 without `.`, `#`, `$`, `[`, `]`, `/` or
/// ASCII control characters; a path is at most 768 bytes and 32 keys deep.
///
/// ```swift
/// try KeyValidation.validateKey("ada")      // fine
/// try KeyValidation.validateKey("a.b")      // throws DatabaseCoreError(.invalidKey, ...)
/// ```
package enum KeyValidation {
    package static let maxKeyBytes = 768
    package static let maxPathBytes = 768
    package static let maxPathDepth = 32

    package static func validateKey(_ key: String) throws(DatabaseCoreError) {
        if key.isEmpty {
            throw DatabaseCoreError(.invalidKey, "a key must not be empty")
        }
        let bytes = key.utf8.count
        if bytes > maxKeyBytes {
            throw DatabaseCoreError(.invalidKey, "the key \"\(key.prefix(32))...\" is \(bytes) bytes of UTF-8; the limit is \(maxKeyBytes)")
        }
        for scalar in key.unicodeScalars {
            switch scalar {
            case ".", "#", "$", "[", "]", "/":
                throw DatabaseCoreError(.invalidKey, "the key \"\(key)\" contains '\(scalar)'; keys must not contain '.', '#', '$', '[', ']' or '/'")
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    throw DatabaseCoreError(.invalidKey, "the key \"\(key.debugDescription)\" contains the control character U+\(String(scalar.value, radix: 16, uppercase: true))")
                }
            }
        }
    }

    package static func validatePath(_ path: DatabasePath) throws(DatabaseCoreError) {
        if path.count > maxPathDepth {
            throw DatabaseCoreError(.invalidPath, "the path \(path.description.prefix(64))... is \(path.count) keys deep; the limit is \(maxPathDepth)")
        }
        let bytes = path.keys.reduce(0) { $0 + $1.utf8.count } + max(path.count - 1, 0)
        if bytes > maxPathBytes {
            throw DatabaseCoreError(.invalidPath, "the path \(path.description.prefix(64))... is \(bytes) bytes of UTF-8; the limit is \(maxPathBytes)")
        }
    }
}
