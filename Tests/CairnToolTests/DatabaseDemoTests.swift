import Testing

/// `cairn demo --only database`: the Realtime Database part of the demo, run as a user runs it. The demo checks the
/// server's own state at every step and exits 1 when a check fails; this test also reads its lines.
@Suite("cairn demo --only database")
struct DatabaseDemoTests {
    @Test("Offline writes survive a SIGKILL and a restart and reach the server in order with resolved timestamps; presence goes offline when the app is killed")
    func databaseDemo() throws {
        let run = try Cairn.run(["demo", "--only", "database"])
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(run.status == 0, "exit \(run.status)\n\(run.stdout)\n\(run.stderr)")
        #expect(lines.first { !$0.isEmpty }?.hasPrefix("Realtime Database: the local server (CairnDatabaseServer) on 127.0.0.1:") == true,
                "\(run.stdout)")
        #expect(lines.contains(#"   the server: status/ada = "online""#), "\(run.stdout)")
        #expect(lines.contains("   the server: messages and rooms are empty (nothing was sent)"), "\(run.stdout)")
        #expect(lines.contains(#"   the server: status/ada = "offline" (the client's socket closed, so the server ran its onDisconnect)"#))
        // The listeners of the restarted process show the writes from disk before anything reaches the server.
        #expect(lines.contains("   the 3 messages and the room came back from disk; the server still has none of them"), "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("    messages → m1 {at ") && $0.contains("m3 {at ") }, "\(run.stdout)")
        #expect(lines.contains(
            "   the server received, in write order: p /messages/m1, p /messages/m2, m /rooms/lobby, p /messages/m3, m /rooms/lobby"),
                "\(run.stdout)")
        #expect(lines.contains { $0.hasPrefix("   the server's timestamps, resolved on arrival, in write order: m1 ") }, "\(run.stdout)")
        #expect(lines.contains(#"   the server saw the socket close and ran the onDisconnect: status/ada = "offline""#), "\(run.stdout)")
        #expect(lines.last?.hasPrefix("Realtime Database: every check passed against the server's state, in ") == true, "\(run.stdout)")
        #expect(!lines.contains { $0.hasPrefix("compaction:") || $0.contains("Firestore") }, "--only runs no other part")
    }

    @Test("An unknown --only part is a usage error (exit 2) that names the option")
    func unknownPart() throws {
        let run = try Cairn.run(["demo", "--only", "realtime"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--only"), "\(run.stderr)")
    }
}
