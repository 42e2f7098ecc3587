import Foundation

/// Collects callback results for assertions.
package final class Recorder<Element>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Element] = []

    package init() {}

    package func append(_ element: Element) {
        lock.lock()
        storage.append(element)
        lock.unlock()
    }

    package var values: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
