import Foundation

/// The official Cloud Firestore emulator, started for tests on a free loopback port.
///
/// The emulator ships in the Debian package `google-cloud-cli-firestore-emulator` as the script
/// `cloud_firestore_emulator` in the google-cloud-sdk platform folder and needs Java. One emulator per test
/// process is shared by every test (``shared()``); tests isolate themselves by project id or by ``reset(projectID:)``.
/// Tests that need security rules, or that stop and restart the server, start their own
/// (``start(rules:port:timeout:)``).
/// The emulator's output goes to a log file (``logPath``) for diagnostics. It is stopped when the process exits,
/// and a watchdog stops it within a second if the test process dies without exiting cleanly.
///
/// ```swift
/// guard FirestoreEmulator.missingReason == nil else { return }     // or fail under CI=true
/// let emulator = try await FirestoreEmulator.shared()
/// try emulator.reset(projectID: "demo-test")
/// // connect to emulator.host:emulator.port, plaintext, "Authorization: Bearer owner"
/// ```
///
/// Sendability: `Process` and `Pipe` are not `Sendable`, but after launch this class only calls the thread-safe
/// `isRunning`, `waitUntilExit()` and the pipe's `close()`; every other property is an immutable value.
public final class FirestoreEmulator: @unchecked Sendable {
    /// Where the Debian package installs the launcher script.
    public static let scriptPath =
        "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator"

    public let host = "127.0.0.1"
    public let port: Int
    /// The emulator's stdout and stderr.
    public let logPath: String
    /// How long the emulator took from launch until `GET /` answered `Ok`.
    public let startupDuration: Duration
    private let process: Process
    /// The launcher's stdin; closing it (or this process dying) stops the emulator.
    private let lifeline: Pipe

    /// Why the emulator cannot run here (no launcher script, or no `java` on PATH), nil when it can.
    public static var missingReason: String? {
        guard FileManager.default.isExecutableFile(atPath: scriptPath) else {
            return "the Firestore emulator is not installed (\(scriptPath) is missing; "
                + "apt-get install google-cloud-cli-firestore-emulator)"
        }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let hasJava = path.split(separator: ":").contains {
            FileManager.default.isExecutableFile(atPath: "\($0)/java")
        }
        return hasJava
            ? nil
            : "the Firestore emulator needs Java, but `java` is not on PATH (apt-get install default-jre-headless)"
    }

    /// True when the environment says tests run in CI (`CI=true`), where a missing emulator is a failure.
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    /// The emulator shared by this test process, started on first use.
    public static func shared() async throws -> FirestoreEmulator {
        try await SharedEmulator.instance.get()
    }

    /// Starts an emulator and waits until it answers (up to `timeout`).
    ///
    /// - Parameters:
    ///   - rules: a security-rules file for every project (`--rules`); without it everything is allowed. The
    ///     emulator lets the token `owner` bypass rules, so a client must connect without it for rules to apply.
    ///   - port: the loopback port, to restart an emulator where a client expects it; a free port when nil.
    ///
    /// ```swift
    /// let first = try await FirestoreEmulator.start(rules: rulesFile)
    /// first.stop()
    /// let second = try await FirestoreEmulator.start(port: first.port)   // same address, empty database
    /// ```
    public static func start(
        rules: URL? = nil, port requestedPort: Int? = nil, timeout: Duration = .seconds(120)
    ) async throws -> FirestoreEmulator {
        if let reason = missingReason { throw EmulatorError(reason) }
        if let rules, !FileManager.default.isReadableFile(atPath: rules.path) {
            throw EmulatorError("the rules file \(rules.path) does not exist or cannot be read")
        }
        let clock = ContinuousClock()
        let began = clock.now
        let port = try requestedPort ?? LoopbackHTTP.freePort()
        if requestedPort != nil, (try? LoopbackHTTP.request("GET", "/", port: port)) != nil {
            throw EmulatorError("port \(port) already answers HTTP; stop the server there before starting on it")
        }
        let logPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-firestore-emulator-\(getpid())-\(port)-\(UUID().uuidString.prefix(8)).log")
            .path
        guard FileManager.default.createFile(atPath: logPath, contents: nil),
            let log = FileHandle(forWritingAtPath: logPath)
        else {
            throw EmulatorError("cannot write the emulator log \(logPath)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        let options = rules.map { ["--rules=\($0.path)"] } ?? []
        process.arguments = ["-c", watchdogScript, "firestore-emulator", scriptPath, "\(port)"] + options
        process.standardOutput = log
        process.standardError = log
        let lifeline = Pipe()
        process.standardInput = lifeline
        try process.run()
        while clock.now - began < timeout {
            if !process.isRunning {
                throw EmulatorError("the emulator exited during startup; see \(logPath)")
            }
            if let answer = try? LoopbackHTTP.request("GET", "/", port: port), answer.status == 200,
                answer.body.hasPrefix("Ok")
            {
                return FirestoreEmulator(
                    port: port, logPath: logPath, startupDuration: clock.now - began, process: process,
                    lifeline: lifeline)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
        throw EmulatorError("the emulator did not answer GET / with Ok within \(timeout); see \(logPath)")
    }

    /// Starts an emulator whose security rules are `rulesText` (the text of a rules file). The file is written
    /// into the temporary directory beside the emulator's log, and like the log it stays there for inspection.
    public static func start(rulesText: String) async throws -> FirestoreEmulator {
        let rulesFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("cairn-firestore-rules-\(getpid())-\(UUID().uuidString.prefix(8)).rules")
        do {
            try rulesText.write(to: rulesFile, atomically: true, encoding: .utf8)
        } catch {
            throw EmulatorError("cannot write the rules file \(rulesFile.path): \(error)")
        }
        return try await start(rules: rulesFile)
    }

    private init(port: Int, logPath: String, startupDuration: Duration, process: Process, lifeline: Pipe) {
        self.port = port
        self.logPath = logPath
        self.startupDuration = startupDuration
        self.process = process
        self.lifeline = lifeline
    }

    /// `host:port`, the form of `FIRESTORE_EMULATOR_HOST`.
    public var hostAndPort: String { "\(host):\(port)" }

    /// Deletes every document of the project's default database. Retried when the emulator answers 499: it tells
    /// listeners of each change inside the request, and a listen stream that ended at that moment (a client's
    /// `disableNetwork` or `terminate`) fails the request with "call already cancelled" after it was applied; the
    /// deletion is idempotent.
    public func reset(projectID: String) throws {
        let path = "/emulator/v1/projects/\(projectID)/databases/(default)/documents"
        for attempt in 1...5 {
            let answer = try LoopbackHTTP.request("DELETE", path, port: port)
            if answer.status == 200 { return }
            guard answer.status == 499, attempt < 5 else {
                throw EmulatorError("DELETE \(path) answered \(answer.status): \(answer.body.prefix(200)); see \(logPath)")
            }
            usleep(useconds_t(50_000 * attempt))
        }
    }

    /// Stops the emulator (the script and its Java process) and waits for the launcher to exit.
    public func stop() {
        try? lifeline.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    /// Runs the launcher script and kills it and its Java child when the watchdog's stdin reaches end of file:
    /// ``stop()`` closes it, and so does the kernel when the test process dies. Signals are not used because a
    /// test runner may start its children with SIGTERM blocked. Arguments: script, port, extra emulator options.
    private static let watchdogScript = """
        "$1" start --host=127.0.0.1 --port="$2" "${@:3}" &
        emulator=$!
        while kill -0 "$emulator" 2>/dev/null; do
            read -r -t 1 _
            [ $? -gt 128 ] || break
        done
        pkill -KILL -P "$emulator"
        kill -KILL "$emulator" 2>/dev/null
        exit 0
        """
}

/// An emulator start or reset failure, with what to look at.
public struct EmulatorError: Error, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = "Firestore emulator: " + description }
}

/// Starts the shared emulator once per process and stops it at exit.
private actor SharedEmulator {
    static let instance = SharedEmulator()

    private var emulator: Task<FirestoreEmulator, any Error>?

    func get() async throws -> FirestoreEmulator {
        if let emulator { return try await emulator.value }
        let task = Task { () async throws -> FirestoreEmulator in
            let started = try await FirestoreEmulator.start()
            ExitHook.stopAtExit(started)
            return started
        }
        emulator = task
        return try await task.value
    }
}

/// Stops the shared emulator from an `atexit` handler, so it never outlives a test run that ends normally.
private enum ExitHook {
    nonisolated(unsafe) static var emulator: FirestoreEmulator?

    static func stopAtExit(_ started: FirestoreEmulator) {
        emulator = started
        atexit { ExitHook.emulator?.stop() }
    }
}
