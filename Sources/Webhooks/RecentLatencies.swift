/// The latest delivery latencies, a fixed ring, for the status's percentiles.
struct RecentLatencies {
    private var samples: [Double] = []
    private var next = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
    }

    mutating func add(_ seconds: Double) {
        if samples.count < capacity {
            samples.append(seconds)
        } else {
            samples[next] = seconds
        }
        next = (next + 1) % capacity
    }

    /// The nearest-rank quantile `q` (0...1); nil with no samples.
    func quantile(_ q: Double) -> Double? {
        guard !samples.isEmpty else { return nil }
        let sorted = samples.sorted()
        let rank = Int((q * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}
