#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A detached pthread that runs `step` until it returns false. Used for the `.normal` durability flusher,
/// which must keep its promise even when no commit arrives to trigger a sync.
final class FlusherThread: @unchecked Sendable {
    private let step: @Sendable () -> Bool

    init(step: @escaping @Sendable () -> Bool) { self.step = step }

    func start() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            let me = Unmanaged<FlusherThread>.fromOpaque(raw!).takeRetainedValue()
            while me.step() {}
            return nil
        }, box.toOpaque())
        if result == 0 {
            pthread_detach(thread)
        } else {
            box.release()
        }
    }
}
