import Foundation

/// A throwaway certificate authority made with `openssl` at run time, for proving TLS against a local server: a
/// self-signed CA (P-256, valid two days) and server certificates it signs for given names. Everything lives in a
/// private directory (0700, keys 0600) that the caller removes; nothing is ever committed.
///
/// ```swift
/// let ca = try await TestCertificateAuthority.make(in: directory)
/// let server = try await ca.issue(name: "proxy", for: ["DNS:localhost", "IP:127.0.0.1"])
/// settings.tlsTrustRoots = .pemFile(ca.certificatePath)      // the client trusts this CA only
/// ```
public struct TestCertificateAuthority: Sendable {
    /// A server's certificate (PEM) and private key (PEM), as files.
    public struct Issued: Sendable {
        public var certificatePath: String
        public var keyPath: String
    }

    /// The CA's directory (its key, its certificate, the certificates it issued).
    public let directory: URL
    /// The CA certificate (PEM): the trust root to give a client.
    public var certificatePath: String { directory.appendingPathComponent("ca.pem").path }
    private var keyPath: String { directory.appendingPathComponent("ca.key").path }
    private let openssl: String

    /// Why no CA can be made here (no `openssl`), nil when it can.
    public static var missingReason: String? {
        ExternalTool.find("openssl") == nil ? "openssl is not installed (apt-get install openssl)" : nil
    }

    /// Makes a new CA in `directory` (created 0700 when missing).
    public static func make(in directory: URL) async throws -> TestCertificateAuthority {
        guard let openssl = ExternalTool.find("openssl") else {
            throw ExternalToolError(missingReason ?? "openssl is missing")
        }
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let authority = TestCertificateAuthority(directory: directory, openssl: openssl)
        try await ExternalTool.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", authority.keyPath, "-out", authority.certificatePath, "-days", "2",
                "-subj", "/CN=Cairn test CA \(UUID().uuidString.prefix(8))",
                "-addext", "basicConstraints=critical,CA:TRUE",
                "-addext", "keyUsage=critical,keyCertSign,cRLSign",
            ])
        try privatize([authority.keyPath, authority.certificatePath])
        return authority
    }

    /// A server certificate signed by this CA for `subjectAlternativeNames` (`DNS:name` or `IP:address`), with
    /// its key; files `name.pem` and `name.key` in the CA's directory.
    public func issue(name: String, for subjectAlternativeNames: [String]) async throws -> Issued {
        let file = { (suffix: String) in directory.appendingPathComponent("\(name).\(suffix)").path }
        let extensions = [
            "subjectAltName=\(subjectAlternativeNames.joined(separator: ","))",
            "basicConstraints=critical,CA:FALSE",
            "keyUsage=critical,digitalSignature",
            "extendedKeyUsage=serverAuth",
        ].joined(separator: "\n")
        guard FileManager.default.createFile(
            atPath: file("ext"), contents: Data(extensions.utf8), attributes: [.posixPermissions: 0o600])
        else {
            throw ExternalToolError("cannot write \(file("ext"))")
        }
        try await ExternalTool.run(
            openssl,
            [
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", file("key"), "-out", file("csr"), "-subj", "/CN=\(name)",
            ])
        let serial = "0x" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16)
        try await ExternalTool.run(
            openssl,
            [
                "x509", "-req", "-in", file("csr"), "-CA", certificatePath, "-CAkey", keyPath, "-set_serial", serial,
                "-days", "2", "-out", file("pem"), "-extfile", file("ext"),
            ])
        try privatize([file("key"), file("pem"), file("csr")])
        return Issued(certificatePath: file("pem"), keyPath: file("key"))
    }

    private init(directory: URL, openssl: String) {
        self.directory = directory
        self.openssl = openssl
    }

    /// Makes `paths` readable by their owner only (openssl creates some files with the process's umask).
    private static func privatize(_ paths: [String]) throws {
        for path in paths { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
    }

    private func privatize(_ paths: [String]) throws { try Self.privatize(paths) }
}
