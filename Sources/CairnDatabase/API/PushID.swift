import Foundation
import Synchronization

/// Firebase's push ids (`childByAutoId`): 8 characters of the time in milliseconds, then 12 random characters,
/// from an alphabet in ASCII order, so ids sort by creation time. Within one millisecond the random part is the
/// previous one plus one, so ids made by one client stay strictly increasing.
enum PushID {
    static let alphabet = Array("-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz")

    private struct State {
        var lastTime: Int64 = -1
        var lastRandom = [Int](repeating: 0, count: 12)
    }

    private static let state = Mutex(State())

    static func next(now: Date = Date()) -> String {
        let time = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        let random: [Int] = state.withLock { state in
            if time == state.lastTime {
                var index = 11
                while index >= 0 && state.lastRandom[index] == 63 {
                    state.lastRandom[index] = 0
                    index -= 1
                }
                if index >= 0 { state.lastRandom[index] += 1 }
            } else {
                state.lastTime = time
                state.lastRandom = (0..<12).map { _ in Int.random(in: 0..<64) }
            }
            return state.lastRandom
        }
        var timeChars = [Character](repeating: "-", count: 8)
        var remaining = time
        for index in stride(from: 7, through: 0, by: -1) {
            timeChars[index] = alphabet[Int(remaining % 64)]
            remaining /= 64
        }
        return String(timeChars) + String(random.map { alphabet[$0] })
    }
}
