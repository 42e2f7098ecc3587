import Foundation

/// Debian's nginx as a TLS-terminating gRPC proxy in front of a plaintext gRPC server (the Firestore emulator),
/// with certificates from a fresh ``TestCertificateAuthority``: the production shape (TLS, HTTP/2 with ALPN `h2`,
/// a private CA) on one machine.
///
/// Two listeners on loopback: ``port`` presents a certificate for `localhost` and `127.0.0.1`; ``wrongNamePort``
/// one for `wrong-host.invalid` only, signed by the same CA (a host-name mismatch). nginx runs as a child process
/// with its own prefix, configuration, logs and pid file in a private temporary directory (``directory``),
/// `daemon off` and `master_process off` (one process, no privilege drop, nothing outside that directory). A
/// watchdog stops it when ``stop()`` is called or when this process dies; ``stop()`` also removes the directory.
///
/// ```swift
/// guard NginxTLSProxy.missingReason == nil else { return }
/// let proxy = try await NginxTLSProxy.start(upstreamPort: emulator.port)
/// defer { proxy.stop() }
/// settings.host = "127.0.0.1:\(proxy.port)"; settings.tlsTrustRoots = .pemFile(proxy.authority.certificatePath)
/// ```
///
/// Sendability: after launch only the thread-safe `Process.isRunning`/`waitUntilExit()` and the pipe's `close()`
/// are called; every other property is an immutable value.
public final class NginxTLSProxy: @unchecked Sendable {
    /// The name the certificate of ``wrongNamePort`` is issued for (a reserved top-level domain: never real).
    public static let wrongHostName = "wrong-host.invalid"

    public let host = "127.0.0.1"
    /// Presents a certificate for `localhost` and `127.0.0.1`.
    public let port: Int
    /// Presents a certificate for ``wrongHostName`` only.
    public let wrongNamePort: Int
    /// The CA that signed both certificates; its ``TestCertificateAuthority/certificatePath`` is the trust root.
    public let authority: TestCertificateAuthority
    /// The private directory: certificates, keys, nginx.conf, error.log, access.log, nginx.pid.
    public let directory: URL
    private let process: Process
    private let lifeline: Pipe

    /// Why the proxy cannot run here (no nginx, no openssl), nil when it can.
    public static var missingReason: String? {
        if ExternalTool.find("nginx") == nil {
            return "nginx is not installed (apt-get install nginx)"
        }
        return TestCertificateAuthority.missingReason
    }

    /// Makes a CA and the two server certificates, starts nginx in front of `127.0.0.1:upstreamPort`, and waits
    /// until it listens (up to `timeout`). A configuration nginx rejects is an error quoting its error log.
    public static func start(upstreamPort: Int, timeout: Duration = .seconds(60)) async throws -> NginxTLSProxy {
        guard let nginx = ExternalTool.find("nginx") else {
            throw ExternalToolError(missingReason ?? "nginx is missing")
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-tls-proxy-\(getpid())-\(UUID().uuidString.prefix(8))")
        do {
            return try await start(nginx: nginx, directory: directory, upstreamPort: upstreamPort, timeout: timeout)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    private static func start(
        nginx: String, directory: URL, upstreamPort: Int, timeout: Duration
    ) async throws -> NginxTLSProxy {
        let authority = try await TestCertificateAuthority.make(in: directory)
        let right = try await authority.issue(name: "proxy", for: ["DNS:localhost", "IP:127.0.0.1"])
        let wrong = try await authority.issue(name: "wrong-name", for: ["DNS:\(wrongHostName)"])
        let port = try LoopbackHTTP.freePort()
        var wrongNamePort = try LoopbackHTTP.freePort()
        while wrongNamePort == port { wrongNamePort = try LoopbackHTTP.freePort() }
        let file = { (name: String) in directory.appendingPathComponent(name).path }
        let configuration = NginxConfiguration(
            directory: directory.path, upstreamPort: upstreamPort,
            servers: [(port, right), (wrongNamePort, wrong)])
        guard FileManager.default.createFile(
            atPath: file("nginx.conf"), contents: Data(configuration.text.utf8),
            attributes: [.posixPermissions: 0o600])
        else {
            throw ExternalToolError("cannot write \(file("nginx.conf"))")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [
            "-c", watchdogScript, "nginx-tls-proxy", nginx, "-p", directory.path, "-c", file("nginx.conf"),
            "-e", file("error.log"),
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let lifeline = Pipe()
        process.standardInput = lifeline
        try process.run()
        let clock = ContinuousClock()
        let began = clock.now
        // nginx writes its pid file once its sockets listen.
        while clock.now - began < timeout {
            if FileManager.default.fileExists(atPath: file("nginx.pid")) {
                return NginxTLSProxy(
                    port: port, wrongNamePort: wrongNamePort, authority: authority, directory: directory,
                    process: process, lifeline: lifeline)
            }
            if !process.isRunning { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
        let log = (try? String(contentsOfFile: file("error.log"), encoding: .utf8)) ?? "(no error log)"
        throw ExternalToolError("nginx did not start listening within \(timeout): \(log.suffix(2000))")
    }

    private init(
        port: Int, wrongNamePort: Int, authority: TestCertificateAuthority, directory: URL, process: Process,
        lifeline: Pipe
    ) {
        self.port = port
        self.wrongNamePort = wrongNamePort
        self.authority = authority
        self.directory = directory
        self.process = process
        self.lifeline = lifeline
    }

    /// nginx's error log so far (for a failure message).
    public var errorLog: String {
        (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
    }

    /// Stops nginx, waits for it to exit, and removes the directory.
    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs nginx (`$1`, options after it) and kills it when the watchdog's stdin reaches end of file: ``stop()``
    /// closes it, and so does the kernel when this process dies.
    private static let watchdogScript = """
        "$1" "${@:2}" &
        server=$!
        while kill -0 "$server" 2>/dev/null; do
            read -r -t 1 _
            [ $? -gt 128 ] || break
        done
        kill -KILL "$server" 2>/dev/null
        wait "$server" 2>/dev/null
        exit 0
        """
}

/// The nginx configuration of ``NginxTLSProxy``: one TLS + HTTP/2 server per certificate, each passing every
/// request to the plaintext gRPC upstream. Long timeouts: a Listen stream may stay silent for minutes.
struct NginxConfiguration {
    var directory: String
    var upstreamPort: Int
    var servers: [(port: Int, certificate: TestCertificateAuthority.Issued)]

    var text: String {
        let blocks = servers.map { server in
            """
                server {
                    listen 127.0.0.1:\(server.port) ssl http2;
                    ssl_certificate \(server.certificate.certificatePath);
                    ssl_certificate_key \(server.certificate.keyPath);
                    location / {
                        grpc_pass grpc://127.0.0.1:\(upstreamPort);
                    }
                }
            """
        }
        return """
            daemon off;
            master_process off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log info;
            events {
                worker_connections 256;
            }
            http {
                access_log \(directory)/access.log;
                client_body_temp_path \(directory)/temp-body;
                proxy_temp_path \(directory)/temp-proxy;
                fastcgi_temp_path \(directory)/temp-fastcgi;
                uwsgi_temp_path \(directory)/temp-uwsgi;
                scgi_temp_path \(directory)/temp-scgi;
                client_max_body_size 0;
                grpc_read_timeout 1h;
                grpc_send_timeout 1h;
                keepalive_timeout 1h;
            \(blocks.joined(separator: "\n"))
            }

            """
    }
}
