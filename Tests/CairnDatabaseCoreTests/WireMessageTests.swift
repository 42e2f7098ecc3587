import CairnDatabaseCore
import Testing

@Suite("Wire messages")
struct WireMessageTests {
    @Test("requests, responses, pushes and control messages survive text and back", arguments: [
        WireMessage.request(id: 7, action: WireAction.put, body: .object(["p": .string("/a/b"), "d": .object(["x": .double(1.5)])])),
        WireMessage.response(id: 7, status: WireStatus.ok, data: .string("")),
        WireMessage.response(id: 8, status: WireStatus.dataStale, data: nil),
        WireMessage.push(action: WirePush.data, body: .object(["p": .string("a"), "d": .int(3), "t": .int(2)])),
        WireMessage.control(type: WireControl.hello,
                            payload: WireHello(timestamp: 1_700_000_000_123, host: "127.0.0.1:9000", sessionID: "s").payload),
    ])
    func roundTrip(message: WireMessage) throws {
        #expect(try WireMessage(text: message.text) == message)
    }

    @Test("the text of a request is Firebase's envelope")
    func requestEnvelope() throws {
        let text = WireMessage.request(id: 1, action: WireAction.listen, body: .object(["p": .string("/")])).text
        let parsed = try WireMessage(text: #"{"t":"d","d":{"a":"q","b":{"p":"/"},"r":1}}"#)
        #expect(try WireMessage(text: text) == parsed)
        #expect(text.hasPrefix(#"{""#) && text.contains(#""t":"d""#))
    }

    @Test("a hello payload reads back its fields; one without a session is refused")
    func hello() {
        let hello = WireHello(timestamp: 5, host: "h:1", sessionID: "abc")
        #expect(WireHello(payload: hello.payload) == hello)
        #expect(WireHello(payload: .object(["ts": .int(5), "h": .string("h")])) == nil)
    }

    @Test("malformed messages are invalidMessage errors, not crashes", arguments: [
        "", "not json", "[]", #"{"t":"x","d":{}}"#, #"{"t":"d"}"#, #"{"t":"c","d":{"d":1}}"#,
        #"{"t":"d","d":{"r":-1,"b":{"s":"ok"}}}"#, #"{"t":"d","d":{"r":4294967296,"b":{"s":"ok"}}}"#,
        #"{"t":"d","d":{"r":1,"b":{}}}"#, #"{"t":"d","d":{"b":{}}}"#,
    ])
    func malformed(text: String) {
        #expect {
            _ = try WireMessage(text: text)
        } throws: { error in
            (error as? DatabaseCoreError)?.code == .invalidMessage
        }
    }

    @Test("a message nested deeper than the limit is refused")
    func tooDeep() {
        var body = "1"
        for _ in 0..<(WireMessage.maxDepth + 1) { body = #"{"a":"# + body + "}" }
        #expect(throws: DatabaseCoreError.self) {
            _ = try WireMessage(text: #"{"t":"d","d":{"a":"d","b":"# + body + "}}")
        }
    }
}
