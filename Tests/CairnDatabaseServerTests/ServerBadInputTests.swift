import CairnDatabaseCore
@testable import CairnDatabaseServer
import Testing

@Suite("Server core: bad input is answered, never a crash")
struct ServerBadInputTests {
    @Test("Malformed JSON and a message without a request number get a control error; the connection keeps working")
    func malformedMessages() throws {
        let client = SessionRecorder(core: fixedCore())
        _ = client.take()
        client.sendRaw("{not json")
        client.sendRaw(#"{"t":"d","d":{"a":"p"}}"#)
        client.sendRaw("[1,2]")
        let errors = client.take()
        #expect(errors.count == 3)
        #expect(errors.allSatisfy { $0["t"] == .string("c") && $0["d"]?["t"] == .string("e") })
        let put = client.send("p", json(#"{"p":"/a","d":1}"#))
        #expect(client.take().response(to: put)?["s"] == .string("ok"))
    }

    @Test("The keepalive 0 gets no answer")
    func keepaliveIgnored() {
        let client = SessionRecorder(core: fixedCore())
        _ = client.take()
        client.sendRaw("0")
        #expect(client.take().isEmpty)
    }

    @Test("Unknown actions, invalid paths, bad data, too deep data and bad queries are answered failed with a message")
    func badRequestsAnswered() throws {
        let core = fixedCore()
        let client = SessionRecorder(core: core)
        _ = client.take()
        var deep = JSONValue.int(1)
        for _ in 0..<40 { deep = .object(["k": deep]) }
        let requests: [(String, JSONValue)] = [
            ("zz", json(#"{"p":"/a"}"#)),
            ("p", json(#"{"p":"/a.b","d":1}"#)),
            ("p", json(#"{"d":1}"#)),
            ("p", json(#"{"p":"/a","d":{"bad#key":1}}"#)),
            ("p", .object(["p": .string("/a"), "d": deep])),
            ("p", .object(["p": .string(Array(repeating: "k", count: 40).joined(separator: "/")), "d": .int(1)])),
            ("m", json(#"{"p":"/a","d":5}"#)),
            ("m", json(#"{"p":"/a","d":{"b":1,"b/c":2}}"#)),
            ("q", json(#"{"p":"/a","h":"","t":1,"q":{"l":0,"vf":"l"}}"#)),
            ("g", json(#"{"p":"/a","q":{"i":".key","sp":5}}"#)),
        ]
        var numbers: [Int64] = []
        for (action, body) in requests { numbers.append(client.send(action, body)) }
        let messages = client.take()
        for (number, request) in zip(numbers, requests) {
            let answer = try #require(messages.response(to: number), "no answer to \(request)")
            #expect(answer["s"] == .string("failed"), "\(request)")
            guard case .string(let message)? = answer["d"] else {
                Issue.record("no message for \(request)")
                continue
            }
            #expect(!message.isEmpty)
        }
        #expect(core.read(namespace: "test", path: .root).isEmpty)
    }
}
