import ArgumentParser
import CairnDatabase
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `cairn database-demo-client`: the app of `cairn demo`'s Realtime Database part (``DatabaseDemo``), a process of
/// its own so that the demo can kill it hard. Only the public CairnDatabase API, plus the package
/// `usePersistenceDirectory` for the cache directory. Persistence is on; it listens to `.info/connected`,
/// `messages` and `rooms/lobby` and prints every event, indented, for the demo to show. Lines that begin with `@`
/// tell the demo where the client is; commands arrive on standard input, one a line.
///
/// - `first`: online; when `.info/connected` is true, presence on `status/<id>` (`onDisconnectSetValue("offline")`,
///   then `setValue("online")`), and once both completed and both listeners have the server's data: `@online`.
///   On `offline`: `goOffline()`, then ``writes`` in order; once the listeners show the last one: `@written`.
/// - `restart` (the same cache directory): `goOffline()` before anything reaches the server, the listeners show
///   what came back from disk: `@restored`. On `online`: `goOnline()`; the restored writes are sent again, and when
///   `.info/connected` is true, presence as in `first`: `@online`.
///
/// Either runs until killed. A failed completion prints `@error ...` and exits with status 1.
///
///     cairn database-demo-client first /tmp/cache --emulator 127.0.0.1:9000 --ns demo --id ada
struct DatabaseDemoClientCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "database-demo-client",
        abstract: "The client process of cairn demo's Realtime Database part.",
        shouldDisplay: false)

    enum Phase: String, ExpressibleByArgument, CaseIterable {
        case first, restart
    }

    @Argument(help: "first: connect, presence, then offline writes on `offline`; restart: reopen offline, `online` syncs.")
    var phase: Phase

    @Argument(help: "The persistent cache directory.")
    var directory: String

    @Option(help: "The Realtime Database server, host:port.")
    var emulator: EmulatorAddress

    @Option(name: .customLong("ns"), help: "The namespace (database name).")
    var namespace: String

    @Option(help: "The presence id: the client writes status/<id>.")
    var id: String

    /// The writes made offline, in order (the demo checks that the server receives them in this order).
    static let writes: [DemoWrite] = [
        DemoWrite(path: "messages/m1", merge: false, text: "written offline"),
        DemoWrite(path: "messages/m2", merge: false, text: "still offline"),
        DemoWrite(path: "rooms/lobby", merge: true, text: "m2"),
        DemoWrite(path: "messages/m3", merge: false, text: "queued, then the app was killed"),
        DemoWrite(path: "rooms/lobby", merge: true, text: "m3"),
    ]

    func validate() throws {
        guard !id.isEmpty, !id.contains("/") else { throw ValidationError("--id must be a non-empty key without '/'") }
    }

    func run() throws {
        let database = open()
        let client = DemoClient(database: database, id: id, phase: phase)
        if phase == .restart { database.goOffline() }
        client.listen()
        client.readCommands()
        dispatchMain()
    }

    private func open() -> Database {
        openDatabase(app: "database-demo-client", namespace: namespace, emulator: emulator, queue: DemoClient.queue,
                     directory: directory)
    }
}

/// One offline write of the demo: a `setValue` of `{text, at}` on a message, or an `updateChildValues` of
/// `{lastMessage, count, updatedAt}` on the room (`text` is then the last message's key, `m<count>`); every one
/// holds `ServerValue.timestamp()`.
struct DemoWrite: Sendable {
    let path: String
    let merge: Bool
    let text: String

    /// The wire action the server receives: `p` (put) or `m` (merge).
    var action: String { merge ? "m" : "p" }

    var value: [String: Any] {
        guard merge else { return ["text": text, "at": ServerValue.timestamp()] }
        return ["lastMessage": text, "count": Int(text.dropFirst()) ?? 0, "updatedAt": ServerValue.timestamp()]
    }
}

/// The client's state; touched only on ``queue`` (the database's callback queue, where commands run too).
private final class DemoClient: @unchecked Sendable {
    static let queue = DispatchQueue(label: "cairn.database-demo-client")

    let database: Database
    let id: String
    let phase: DatabaseDemoClientCommand.Phase
    private var connected: Bool?
    private var presenceStarted = false
    private var presenceDone = false
    private var messages: [String: Any]?
    private var lastMessage: String??
    private var announced: Set<String> = []
    private var writing = false

    init(database: Database, id: String, phase: DatabaseDemoClientCommand.Phase) {
        self.database = database
        self.id = id
        self.phase = phase
    }

    /// Reads commands from standard input on a thread of its own and runs each on ``queue``: `offline` in the
    /// first phase, `online` after a restart. Reads the file descriptor, not stdio's `stdin`: a thread blocked in
    /// `readLine()` holds `stdin`'s lock, and `printNow`'s `fflush(nil)` waits for every stream's lock.
    func readCommands() {
        let thread = Thread { [self] in
            var buffer = Data()
            while true {
                let chunk = FileHandle.standardInput.availableData
                if chunk.isEmpty { return }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    let command = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                        .trimmingCharacters(in: .whitespaces)
                    buffer.removeSubrange(buffer.startIndex...newline)
                    Self.queue.async { [self] in run(command) }
                }
            }
        }
        thread.start()
    }

    private func run(_ command: String) {
        switch (phase, command) {
        case (.first, "offline"): writeOffline()
        case (.restart, "online"): database.goOnline()
        default: printNow("@error unknown command \"\(command)\" in phase \(phase.rawValue)")
        }
    }

    func listen() {
        database.reference(withPath: ".info/connected").observe(.value) { [self] snapshot in
            let now = snapshot.value as? Bool ?? false
            guard now != connected else { return }
            connected = now
            printNow("    .info/connected → \(now)")
            if now && !presenceStarted { startPresence() }
        }
        database.reference(withPath: "messages").observe(.value) { [self] snapshot in
            messages = snapshot.value as? [String: Any] ?? [:]
            printNow("    messages → " + Self.describe(messages ?? [:]))
            progressed()
        }
        database.reference(withPath: "rooms/lobby").observe(.value) { [self] snapshot in
            let room = snapshot.value as? [String: Any] ?? [:]
            lastMessage = .some(room["lastMessage"] as? String)
            printNow("    rooms/lobby → " + Self.describe(room))
            progressed()
        }
    }

    private func startPresence() {
        presenceStarted = true
        let status = database.reference(withPath: "status/\(id)")
        var completions = 0
        let completed: (Error?, DatabaseReference) -> Void = { [self] error, _ in
            if let error { Self.fail("presence on status/\(id): \(error)") }
            completions += 1
            guard completions == 2 else { return }
            presenceDone = true
            printNow("    onDisconnectSetValue(\"offline\") and setValue(\"online\") on status/\(id): both acknowledged")
            progressed()
        }
        status.onDisconnectSetValue("offline", withCompletionBlock: completed)
        status.setValue("online", withCompletionBlock: completed)
    }

    private func writeOffline() {
        database.goOffline()
        writing = true
        for write in DatabaseDemoClientCommand.writes {
            let reference = database.reference(withPath: write.path)
            if write.merge {
                reference.updateChildValues(write.value)
            } else {
                reference.setValue(write.value)
            }
        }
    }

    /// Prints each milestone of the phase once, when both listeners have data.
    private func progressed() {
        guard let messages, let lastMessage else { return }
        if phase == .restart && connected != true {
            announce("@restored \(messages.count)")
        }
        if presenceDone {
            announce("@online")
        }
        let writes = DatabaseDemoClientCommand.writes
        if writing, messages.count == writes.filter({ !$0.merge }).count, lastMessage == writes.last?.text {
            writing = false
            announce("@written")
        }
    }

    private func announce(_ line: String) {
        guard announced.insert(line).inserted else { return }
        printNow(line)
    }

    /// `m1 {at 1764115200123, text written offline}; m2 ...`, by key; a flat object as `count: 3; ...`.
    static func describe(_ value: [String: Any]) -> String {
        guard !value.isEmpty else { return "(empty)" }
        return value.keys.sorted().map { key in
            guard let fields = value[key] as? [String: Any] else { return "\(key): \(value[key]!)" }
            let parts = fields.keys.sorted().map { "\($0) \(fields[$0]!)" }
            return "\(key) {\(parts.joined(separator: ", "))}"
        }.joined(separator: "; ")
    }

    private static func fail(_ message: String) -> Never {
        printNow("@error \(message)")
        _exit(1)
    }
}
