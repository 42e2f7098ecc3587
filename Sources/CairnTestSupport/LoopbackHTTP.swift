import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 client for loopback admin endpoints (the Firestore emulator's `GET /` and reset), and a
/// free-port finder. Plain sockets, so the test support needs Foundation only.
///
/// ```swift
/// let port = try LoopbackHTTP.freePort()
/// let (status, body) = try LoopbackHTTP.request("GET", "/", port: port)   // (200, "Ok")
/// ```
public enum LoopbackHTTP {
    /// An error with the operation that failed and the OS error number.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else { throw Failure(description: "bind(127.0.0.1:0) failed: errno \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else { throw Failure(description: "getsockname() failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Sends one request to 127.0.0.1:`port` and returns the status code and the body (`Connection: close`).
    public static func request(_ method: String, _ path: String, port: Int) throws -> (status: Int, body: String) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopback(port: UInt16(port))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect(127.0.0.1:\(port)) failed: errno \(errno)") }
        let request = Array(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .utf8)
        var sent = 0
        while sent < request.count {
            let n = request[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send() to 127.0.0.1:\(port) failed: errno \(errno)") }
            sent += n
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Servers may keep the connection open despite `Connection: close`: stop once the response is complete.
        while !isComplete(response) {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            guard n > 0 else { throw Failure(description: "recv() from 127.0.0.1:\(port) failed: errno \(errno)") }
            response += buffer[..<n]
        }
        return try parse(response, port: port)
    }

    /// True once the headers and the whole body (by Content-Length, or the last chunk) have arrived.
    private static func isComplete(_ response: [UInt8]) -> Bool {
        guard let headerEnd = find([13, 10, 13, 10], in: response[...]) else { return false }
        let head = String(decoding: response[..<headerEnd], as: UTF8.self).lowercased()
        let bodyCount = response.count - headerEnd - 4
        if head.contains("transfer-encoding: chunked") {
            return response.suffix(5).elementsEqual(Array("0\r\n\r\n".utf8))
        }
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            let value = line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)
            return bodyCount >= (Int(value) ?? 0)
        }
        return false
    }

    private static func parse(_ response: [UInt8], port: Int) throws -> (status: Int, body: String) {
        let crlf: [UInt8] = [13, 10]
        let statusEnd = find(crlf, in: response[...]) ?? response.endIndex
        let statusLine = String(decoding: response[..<statusEnd], as: UTF8.self).split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "127.0.0.1:\(port) sent no HTTP status line")
        }
        guard let headerEnd = find(crlf + crlf, in: response[...]) else { return (status, "") }
        let head = String(decoding: response[..<headerEnd], as: UTF8.self).lowercased()
        var body = response[(headerEnd + 4)...]
        if head.contains("transfer-encoding: chunked") {
            var payload: [UInt8] = []
            while let lineEnd = find(crlf, in: body),
                let size = Int(String(decoding: body[..<lineEnd], as: UTF8.self), radix: 16), size > 0
            {
                let end = min(lineEnd + 2 + size, body.endIndex)
                payload += body[(lineEnd + 2)..<end]
                body = body[end...].dropFirst(2)
            }
            return (status, String(decoding: payload, as: UTF8.self))
        }
        return (status, String(decoding: body, as: UTF8.self))
    }

    private static func find(_ needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (haystack.startIndex...(haystack.endIndex - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}
