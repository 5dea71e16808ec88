import Dispatch

/// Runs blocking socket work (a `recv` that waits) on a thread of its own and awaits the result, so it
/// never holds one of the cooperative pool's few threads that timed tests running beside it need.
public func onOwnThread<Value: Sendable>(_ body: @escaping () throws -> Value) async throws -> Value {
    let work = UncheckedWork(body)
    return try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            do {
                continuation.resume(returning: try work.body())
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

/// The closure touches test peers that only this one thread uses until it returns.
private struct UncheckedWork<Value>: @unchecked Sendable {
    let body: () throws -> Value
    init(_ body: @escaping () throws -> Value) { self.body = body }
}
