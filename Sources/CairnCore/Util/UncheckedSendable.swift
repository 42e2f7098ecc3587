/// Carries a value the library hands to exactly one other thread at a time: user callbacks, which Firebase's API
/// does not require to be `Sendable`, moved onto the callback queue; a transaction attempt and its `done`
/// callback, used only on the worker queue.
package struct UncheckedSendable<Value>: @unchecked Sendable {
    package let value: Value

    package init(_ value: Value) { self.value = value }
}
