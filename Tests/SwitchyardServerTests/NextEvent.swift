import Foundation

/// The next element of `events` matching `predicate`, nil after `timeout`.
func next<Event: Sendable>(
    _ events: AsyncStream<Event>, timeout: Duration = .seconds(5), where predicate: @escaping @Sendable (Event) -> Bool
) async -> Event? {
    await withTaskGroup(of: Event?.self) { group in
        group.addTask {
            for await event in events where predicate(event) { return event }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        defer { group.cancelAll() }
        return await group.next() ?? nil
    }
}
