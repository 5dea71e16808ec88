import Foundation

/// Runs blocking work (a `recv` that waits, a child process's exit) on a thread started for it and
/// awaits the result, so it never holds one of the cooperative pool's threads: the pool has one per
/// core (two on CI), and every daemon and client of the tests beside it runs there. Not
/// `DispatchQueue.global()`: its pool is as wide as the machine and grows by one thread a second
/// while its threads block, so blocking work queued there waits behind other blocking work.
public func onOwnThread<Value: Sendable>(_ body: @escaping () throws -> Value) async throws -> Value {
    let work = UncheckedWork(body)
    return try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do {
                continuation.resume(returning: try work.body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
        thread.name = "test-blocking"
        thread.start()
    }
}

/// The closure touches test peers that only this one thread uses until it returns.
private struct UncheckedWork<Value>: @unchecked Sendable {
    let body: () throws -> Value
    init(_ body: @escaping () throws -> Value) { self.body = body }
}
