import Testing

/// Polls `condition` every 10 ms until it holds, for at most two seconds; records an issue naming
/// `what` and throws when it never does.
func waitUntil(_ what: String, _ condition: () async throws -> Bool) async throws {
    for _ in 0..<200 {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(10))
    }
    Issue.record("timed out waiting until \(what)")
    throw CancellationError()
}
