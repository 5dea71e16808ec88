import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads the daemon's Prometheus text from /metrics.
struct MetricsScraper: Sendable {
    let url: String

    func isHealthy() async -> Bool {
        guard let health = URL(string: url.replacingOccurrences(of: "/metrics", with: "/health")) else { return false }
        return (try? await URLSession.shared.data(from: health)).map { ($0.1 as? HTTPURLResponse)?.statusCode == 200 } ?? false
    }

    /// Every unlabelled sample and labelled sample, keyed by the line's name with its labels.
    func scrape() async -> [String: Double] {
        guard let address = URL(string: url), let (data, _) = try? await URLSession.shared.data(from: address) else { return [:] }
        var values: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            values[String(line[..<space])] = value
        }
        return values
    }
}
