/// What a worker's ICE-TCP port has seen since it started (see `WorkerStatistics`).
struct ICETCPCounters {
    var accepted: UInt64 = 0
    var refused: UInt64 = 0
    var closedUnverified: UInt64 = 0
    var timedOut: UInt64 = 0
}
