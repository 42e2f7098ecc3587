import CairnDatabaseCore
import Testing

@Suite("Wire frames")
struct WireFramesTests {
    @Test("a message up to 16,384 characters is one frame")
    func shortMessageIsOneFrame() {
        let message = String(repeating: "a", count: WireFrames.maxFrameLength)
        #expect(WireFrames.split(message) == [message])
    }

    @Test("a longer message is a count frame then chunks of at most 16,384 UTF-16 units, and reassembles")
    func longMessageSplitsAndReassembles() throws {
        // Astral scalars (two UTF-16 units each) placed so that a naive cut would split a surrogate pair.
        let message = String(repeating: "x", count: 16_383) + String(repeating: "😀é", count: 9_000)
        let frames = WireFrames.split(message)
        #expect(frames.first == String(frames.count - 1))
        #expect(frames.count > 2)
        for chunk in frames.dropFirst() { #expect(chunk.utf16.count <= WireFrames.maxFrameLength) }
        var reassembler = FrameReassembler()
        var results: [String] = []
        for frame in frames { if let done = try reassembler.receive(frame) { results.append(done) } }
        #expect(results == [message])
        #expect(!reassembler.isReassembling)
    }

    @Test("the keepalive frame 0 yields no message and does not start a split message")
    func keepaliveIsIgnored() throws {
        var reassembler = FrameReassembler()
        #expect(try reassembler.receive(WireFrames.keepalive) == nil)
        #expect(!reassembler.isReassembling)
        #expect(try reassembler.receive("{}") == "{}")
    }

    @Test("a count frame announcing more than the byte limit allows is refused")
    func tooManyFramesRefused() {
        var reassembler = FrameReassembler(maxMessageBytes: 100_000)
        #expect(throws: DatabaseCoreError.self) { try reassembler.receive("999999") }
    }

    @Test("chunks that add up to more than the byte limit are refused and the reassembler starts over")
    func oversizedChunksRefused() throws {
        var reassembler = FrameReassembler(maxMessageBytes: 20_000)
        #expect(try reassembler.receive("2") == nil)
        #expect(try reassembler.receive(String(repeating: "a", count: 16_384)) == nil)
        #expect(throws: DatabaseCoreError.self) { try reassembler.receive(String(repeating: "b", count: 16_384)) }
        #expect(!reassembler.isReassembling)
        #expect(try reassembler.receive("{}") == "{}")
    }

    @Test("a single frame longer than the byte limit is refused")
    func oversizedFrameRefused() {
        var reassembler = FrameReassembler(maxMessageBytes: 10)
        #expect(throws: DatabaseCoreError.self) { try reassembler.receive(String(repeating: "a", count: 11)) }
    }
}
