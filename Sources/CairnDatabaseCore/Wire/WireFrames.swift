/// Frames of the v5 protocol: every message is one text frame, except a message longer than
/// ``WireFrames/maxFrameLength`` characters, which is sent as a frame holding the number of frames that follow,
/// then the chunks. The frame `0` alone is a keepalive (the client sends it after 45 s with nothing sent).
///
/// ```swift
/// for frame in WireFrames.split(message.text) { socket.send(frame) }
/// var reassembler = FrameReassembler()
/// if let text = try reassembler.receive(frame) { let message = try WireMessage(text: text) }
/// ```
package enum WireFrames {
    /// The longest frame Firebase's SDKs send: 16,384 characters (UTF-16 code units).
    package static let maxFrameLength = 16_384
    /// A count frame has at most 6 digits (Firebase's JS SDK; iOS sends at most 4).
    package static let maxCountDigits = 6
    /// The keepalive frame.
    package static let keepalive = "0"

    /// The frames that carry `message`: the message itself when it is short enough, otherwise a count frame and
    /// chunks of at most ``maxFrameLength`` UTF-16 code units, cut between Unicode scalars.
    package static func split(_ message: String, maxFrameLength: Int = maxFrameLength) -> [String] {
        let limit = max(2, maxFrameLength)
        if message.utf16.count <= limit { return [message] }
        var chunks: [String] = []
        var current = String.UnicodeScalarView()
        var currentLength = 0
        for scalar in message.unicodeScalars {
            let length = scalar.utf16.count
            if currentLength + length > limit {
                chunks.append(String(current))
                current = String.UnicodeScalarView()
                currentLength = 0
            }
            current.append(scalar)
            currentLength += length
        }
        if !current.isEmpty { chunks.append(String(current)) }
        return [String(chunks.count)] + chunks
    }
}

/// Puts frames back together into messages, with a bound on the memory one message may take (a peer that
/// announces more or longer frames gets an `invalidMessage` error, never an unbounded buffer).
package struct FrameReassembler: Sendable {
    /// The longest message accepted, in UTF-8 bytes (default 256 MiB, Firebase's largest write).
    package let maxMessageBytes: Int
    private var remainingFrames = 0
    private var buffer = ""

    package init(maxMessageBytes: Int = 256 << 20) {
        self.maxMessageBytes = maxMessageBytes
    }

    /// True while the frames of a split message are still arriving.
    package var isReassembling: Bool { remainingFrames > 0 }

    /// Takes one frame; returns the complete message it finishes, or nil (a count frame, a chunk that is not the
    /// last, or a keepalive).
    package mutating func receive(_ frame: String) throws(DatabaseCoreError) -> String? {
        if remainingFrames > 0 {
            guard buffer.utf8.count + frame.utf8.count <= maxMessageBytes else {
                reset()
                throw DatabaseCoreError(.invalidMessage, "a split message is longer than \(maxMessageBytes) bytes")
            }
            buffer += frame
            remainingFrames -= 1
            if remainingFrames > 0 { return nil }
            defer { buffer = "" }
            return buffer
        }
        guard let count = Self.frameCount(frame) else {
            guard frame.utf8.count <= maxMessageBytes else {
                throw DatabaseCoreError(.invalidMessage, "a frame is longer than \(maxMessageBytes) bytes")
            }
            return frame
        }
        if count == 0 { return nil }
        guard count <= maxMessageBytes / WireFrames.maxFrameLength + 1 else {
            throw DatabaseCoreError(.invalidMessage,
                                    "a split message announces \(count) frames, more than \(maxMessageBytes) bytes allow")
        }
        remainingFrames = count
        buffer = ""
        return nil
    }

    private mutating func reset() {
        remainingFrames = 0
        buffer = ""
    }

    /// The frame count of a count frame (1 to 6 ASCII digits), nil for any other frame. `0` is the keepalive.
    private static func frameCount(_ frame: String) -> Int? {
        let bytes = frame.utf8
        guard !bytes.isEmpty, bytes.count <= WireFrames.maxCountDigits,
              bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return Int(frame)
    }
}
