import Synchronization
import Testing

/// What a test started that outlives its own tasks: private PostgreSQL servers, daemons in processes
/// of their own, clusters. Each registers its stop with the test's scope (`StopsWhatItStarts`), which
/// runs every stop when the test ends, however it ends: a failing `#require` or a thrown error skips
/// the stops at the end of the test's body, and a PostgreSQL left running outlives the test process.
/// Every registered stop may run twice (the test's own, then the scope's) and does its work once.
final class StartedProcesses: Sendable {
    @TaskLocal static var current: StartedProcesses?
    private let stops = Mutex<[@Sendable () async -> Void]>([])

    /// Registers `stop` with the scope of the test running in this task, if it has one.
    static func register(_ stop: @escaping @Sendable () async -> Void) {
        current?.stops.withLock { $0.append(stop) }
    }

    /// Runs every registered stop, the last started first.
    fileprivate func stopAll() async {
        let pending = stops.withLock { stops in
            defer { stops = [] }
            return stops
        }
        for stop in pending.reversed() { await stop() }
    }
}

/// Gives each test of a suite a `StartedProcesses` scope and stops what it left running.
struct StopsWhatItStarts: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        let started = StartedProcesses()
        try await StartedProcesses.$current.withValue(started) {
            do {
                try await function()
            } catch {
                await started.stopAll()
                throw error
            }
            await started.stopAll()
        }
    }
}

extension Trait where Self == StopsWhatItStarts {
    /// Stops after each test the servers and processes it started and left running.
    static var stopsWhatItStarts: Self { Self() }
}
