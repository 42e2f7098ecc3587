import CairnDatabaseCore
import Foundation
import NIOHTTP1

/// An answer of the REST API before it is written: status, headers and a JSON (or empty) body.
struct RESTResponse: Sendable {
    var status: HTTPResponseStatus
    var headers: [(String, String)] = []
    var body: String

    static func error(_ error: ServerError) -> RESTResponse {
        RESTResponse(status: HTTPResponseStatus(statusCode: error.httpStatus),
                     body: ServerMessages.encode(.object(["error": .string(error.message)])))
    }
}

/// The REST API (`/<path>.json`), as firebase-admin and Firebase's documentation use it:
///
/// - `GET` with query parameters (``RESTQuery``), `shallow=true` (children as `true`), `format=export`
///   (priorities), `print=pretty|silent`; `X-Firebase-ETag: true` adds an `ETag` header, `if-none-match` answers
///   304 when it is current.
/// - `PUT` (set), `PATCH` (update), `POST` (a push id: `{"name": id}`), `DELETE`; `if-match: <etag>` makes a
///   PUT or DELETE conditional: 412 with the current data and its `ETag` when it is not current.
/// - The identity comes from `Authorization: Bearer <token>` or `auth=`/`access_token=` (never logged).
/// - Errors are `{"error": "<message>"}` with 400, 401, 404 or 412.
struct RESTRequestHandler {
    let core: DatabaseServerCore

    struct Request {
        var method: HTTPMethod
        var target: RequestTarget
        var headers: HTTPHeaders
        var body: Data
    }

    /// The database path of a `/<path>.json` target.
    static func databasePath(_ target: RequestTarget) throws(ServerError) -> DatabasePath {
        guard target.path.hasSuffix(".json") else {
            throw ServerError(.invalidPath, "REST paths end in .json, as in /users/ada.json; got \(target.path.prefix(64))")
        }
        return try ServerWrite.parsePath(String(target.path.dropLast(5)))
    }

    static func auth(_ request: Request) -> ServerAuth {
        if let header = request.headers.first(name: "authorization") {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return ServerAuth(token: String(parts[1])) }
        }
        if let token = request.target.query["auth"] ?? request.target.query["access_token"] { return ServerAuth(token: token) }
        return .anonymous
    }

    func respond(_ request: Request) -> RESTResponse {
        do {
            let path = try Self.databasePath(request.target)
            let namespace = request.target.namespace
            let auth = Self.auth(request)
            let wantsETag = request.headers.first(name: "x-firebase-etag")?.lowercased() == "true"
            switch request.method {
            case .GET:
                let params = try RESTQuery.params(request.target.query)
                let node = try core.restRead(namespace: namespace, path: path, params: params, auth: auth)
                let etag = DatabaseServerCore.etag(of: node)
                if let expected = request.headers.first(name: "if-none-match"), expected == etag {
                    return RESTResponse(status: .notModified, headers: [("ETag", etag)], body: "")
                }
                let value: JSONValue
                if request.target.query["shallow"] == "true" {
                    value = node.isLeaf ? node.valueJSON() : (node.isEmpty ? .null : .object(Dictionary(uniqueKeysWithValues: node.childKeys.map { ($0, JSONValue.bool(true)) })))
                } else {
                    value = request.target.query["format"] == "export" ? node.exportJSON() : node.valueJSON()
                }
                return answer(value, request, etag: wantsETag ? etag : nil)
            case .PUT, .DELETE:
                let data = request.method == .DELETE ? JSONValue.null : try Self.json(request.body)
                let write = try ServerWrite.decodeSet(path: path, data: data)
                let condition = request.headers.first(name: "if-match").map { DatabaseServerCore.WriteCondition.etag($0) } ?? .none
                let stored = try core.restWrite(write, namespace: namespace, auth: auth, condition: condition)
                let etag = wantsETag || request.headers.contains(name: "if-match") ? DatabaseServerCore.etag(of: stored) : nil
                return answer(stored.valueJSON(), request, etag: etag)
            case .PATCH:
                let data = try Self.json(request.body)
                let write = try ServerWrite.decodeMerge(path: path, data: data)
                _ = try core.restWrite(write, namespace: namespace, auth: auth, condition: .none)
                return answer(data, request, etag: nil)
            case .POST:
                let name = try core.restPush(try Self.json(request.body), namespace: namespace, path: path, auth: auth)
                return answer(.object(["name": .string(name)]), request, etag: nil)
            default:
                return RESTResponse(status: .methodNotAllowed, body: ServerMessages.encode(.object(["error": .string("the REST API takes GET, PUT, PATCH, POST and DELETE")])))
            }
        } catch {
            guard error.code == .dataStale, let path = try? Self.databasePath(request.target) else { return .error(error) }
            // A failed if-match: the current data and its ETag, which firebase-admin's transactions retry with.
            let current = core.read(namespace: request.target.namespace, path: path)
            return RESTResponse(status: .preconditionFailed, headers: [("ETag", DatabaseServerCore.etag(of: current))],
                                body: ServerMessages.encode(current.valueJSON()))
        }
    }

    private func answer(_ value: JSONValue, _ request: Request, etag: String?) -> RESTResponse {
        var headers: [(String, String)] = []
        if let etag { headers.append(("ETag", etag)) }
        switch request.target.query["print"] {
        case "silent":
            return RESTResponse(status: .noContent, headers: headers, body: "")
        case "pretty":
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let text = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
            return RESTResponse(status: .ok, headers: headers, body: text)
        default:
            return RESTResponse(status: .ok, headers: headers, body: ServerMessages.encode(value))
        }
    }

    static func json(_ body: Data) throws(ServerError) -> JSONValue {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: body) else {
            throw ServerError(.invalidData, "Invalid data; couldn't parse JSON object, array, or value.")
        }
        return value
    }
}
