import Foundation

/// The error domain of every error Cairn reports, Firebase's string so that code comparing domains ports as is.
public let FirestoreErrorDomain = "FIRFirestoreErrorDomain"

/// An error reported by Firestore: a code (the gRPC status codes, as Firebase uses them) and a message a person can
/// act on.
///
/// As in Firebase's Apple SDK, the error bridges to `NSError` with `FirestoreErrorDomain` and the code's raw value,
/// and the codes are reachable both as `FirestoreErrorCode.Code.unavailable` and `FirestoreErrorCode.unavailable`:
///
/// ```swift
/// db.collection("cities").document("SF").getDocument(source: .server) { snapshot, error in
///     if let error = error as? FirestoreErrorCode, error.code == .unavailable {
///         print("offline: \(error.localizedDescription)")
///     }
///     // or, as Firebase code often does:
///     if let error = error as NSError?, error.code == FirestoreErrorCode.unavailable.rawValue { ... }
/// }
/// ```
///
/// A code also matches an error in patterns, as Firebase's bridged codes do:
///
/// ```swift
/// do {
///     try await db.document("cities/SF").getDocument(source: .server)
/// } catch FirestoreErrorCode.unavailable {
///     print("offline")
/// }
/// ```
public struct FirestoreErrorCode: Error, Hashable, Sendable, CustomNSError, CustomStringConvertible {
    /// The status codes, with the raw values of gRPC and of Firebase's `FIRFirestoreErrorCode`.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case ok = 0
        case cancelled = 1
        case unknown = 2
        case invalidArgument = 3
        case deadlineExceeded = 4
        case notFound = 5
        case alreadyExists = 6
        case permissionDenied = 7
        case resourceExhausted = 8
        case failedPrecondition = 9
        case aborted = 10
        case outOfRange = 11
        case unimplemented = 12
        case `internal` = 13
        case unavailable = 14
        case dataLoss = 15
        case unauthenticated = 16
    }

    public let code: Code
    /// What went wrong and, where there is one, what to do about it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public static var errorDomain: String { FirestoreErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
    public var localizedDescription: String { message }
    public var description: String { "FirestoreErrorCode(\(code)): \(message)" }

    public static var ok: Code { .ok }
    public static var cancelled: Code { .cancelled }
    public static var unknown: Code { .unknown }
    public static var invalidArgument: Code { .invalidArgument }
    public static var deadlineExceeded: Code { .deadlineExceeded }
    public static var notFound: Code { .notFound }
    public static var alreadyExists: Code { .alreadyExists }
    public static var permissionDenied: Code { .permissionDenied }
    public static var resourceExhausted: Code { .resourceExhausted }
    public static var failedPrecondition: Code { .failedPrecondition }
    public static var aborted: Code { .aborted }
    public static var outOfRange: Code { .outOfRange }
    public static var unimplemented: Code { .unimplemented }
    public static var `internal`: Code { .internal }
    public static var unavailable: Code { .unavailable }
    public static var dataLoss: Code { .dataLoss }
    public static var unauthenticated: Code { .unauthenticated }
}

extension FirestoreErrorCode.Code {
    /// Whether `error` has this code: a ``FirestoreErrorCode``, or an `NSError` in ``FirestoreErrorDomain``. This is
    /// what makes `catch FirestoreErrorCode.unavailable` and `case FirestoreErrorCode.unavailable:` (in a `switch`
    /// over an `Error`) match, as with Firebase's bridged `FirestoreErrorCode`.
    public static func ~= (code: FirestoreErrorCode.Code, error: any Error) -> Bool {
        if let error = error as? FirestoreErrorCode { return error.code == code }
        let bridged = error as NSError
        return bridged.domain == FirestoreErrorDomain && bridged.code == code.rawValue
    }
}
