import CSystemShims
import Dispatch
import Logging
import ServiceLifecycle

/// Hands freed memory back to the system once a burst of clients is over, or once the freed memory
/// glibc keeps resident has grown, when `MemoryTrimSchedule` says so. The trim runs on a queue of its
/// own: it blocks while it walks the heaps, and must hold up neither the cooperative pool that
/// signaling runs on nor a media worker.
struct MemoryReturnService: Service {
    /// How often the load is read. With the schedule's interval, what a burst left behind goes back
    /// at most about 7 s after the burst (or the reconnection grace of its dropped clients) ended.
    static let checkInterval: Duration = .seconds(2)
    /// Every trim and every reading of the freed memory in the process, one at a time: a reading taken
    /// while another daemon's trim runs would see memory go back that this one did not give.
    static let trimQueue = DispatchQueue(label: "switchyard.memory-return")

    /// The clients the daemon holds now: open HTTP connections and session connections.
    let load: @Sendable () async -> Int
    let logger: Logger

    func run() async throws {
        let load = self.load
        let logger = self.logger
        try? await cancelWhenGracefulShutdown {
            var schedule = MemoryTrimSchedule()
            while true {
                try await Task.sleep(for: Self.checkInterval)
                let held = await load()
                let freed = await Self.freedResidentBytes()
                guard schedule.observe(load: held, freedResidentBytes: freed, now: .now) == .trim else { continue }
                let (released, took) = await Self.trim()
                let freedAfter = await Self.freedResidentBytes()
                schedule.trimmed(freedResidentBytes: freedAfter)
                logger.debug(
                    "returned freed memory to the system",
                    metadata: [
                        "clients": "\(held)", "released": "\(released)", "took": "\(took)",
                        "freedResidentBytes": "\(freed) -> \(freedAfter)",
                    ])
            }
        }
    }

    /// Freed memory glibc keeps resident now; read on the trim's queue, since mallinfo2 locks every
    /// arena in turn while it counts. Below 0 when memory allocated and not yet touched outweighs it
    /// (in use, not resident): only its growth is acted on, so it is passed on as read. 0 when /proc
    /// cannot be read.
    static func freedResidentBytes() async -> Int {
        await withCheckedContinuation { continuation in
            trimQueue.async {
                let reading = switchyard_freed_resident_bytes()
                continuation.resume(returning: reading == -1 ? 0 : Int(reading))
            }
        }
    }

    private static func trim() async -> (released: Bool, took: Duration) {
        await withCheckedContinuation { continuation in
            trimQueue.async {
                var released = false
                let took = ContinuousClock().measure { released = switchyard_return_free_memory() == 1 }
                continuation.resume(returning: (released, took))
            }
        }
    }
}
