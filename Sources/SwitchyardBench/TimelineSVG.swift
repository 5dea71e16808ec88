import Foundation

/// Draws the run's timeline: one lane per watched subscriber with its received bitrate, the loss
/// its network imposed, and its video state (on, warned, off for quality, paused) as a band; for an
/// impaired subscriber also the router's estimate of its downlink and the rate cap imposed; for the
/// simulcast scenario the band shows the decoded layer instead (darker: a larger picture).
public enum TimelineSVG {
    static let laneHeight = 90.0
    static let left = 140.0
    static let plotWidth = 900.0

    public static func render(_ report: BenchReport) -> String {
        if let chaos = report.chaos { return ChaosTimelineSVG.render(chaos, measuredSeconds: report.measuredSeconds) }
        let series = report.timeline
        let duration = max(report.measuredSeconds, series.flatMap(\.points).map(\.seconds).max() ?? 1)
        let values: [Double] = series.flatMap(\.points).flatMap { point -> [Double] in
            [point.kbps, point.estimateKbps ?? 0, point.capacityKbps ?? 0]
        }
        let maximumKbps: Double = max(100, values.max() ?? 100)
        let layerWidths = Set(series.flatMap(\.points).compactMap(\.decodedWidth).filter { $0 > 0 }).sorted()
        let height = 60 + Double(series.count) * laneHeight + 40
        func x(_ seconds: Double) -> Double { left + plotWidth * seconds / duration }
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(left + plotWidth + 40))" height="\(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="14">switchyard-bench \(report.scenario.rawValue): received kbps (line, 0–\(Int(maximumKbps))), imposed loss (grey), video state (band)</text>
            <text x="\(left)" y="38">\(layerWidths.isEmpty ? "band: green on · amber warned · red off (quality) · blue paused (other reason)" : "band: decoded width \(layerWidths.map(String.init).joined(separator: " / ")) (light to dark), grey nothing"); impaired lanes: router's estimate (orange), imposed rate cap (dashed)</text>

            """
        for (lane, entry) in series.enumerated() {
            let top = 50 + Double(lane) * laneHeight
            let plotHeight = laneHeight - 24
            svg += "<text x=\"8\" y=\"\(format(top + plotHeight / 2))\">\(escape(entry.subscriber))\(entry.impaired ? " (impaired)" : "")</text>\n"
            svg += "<rect x=\"\(left)\" y=\"\(format(top))\" width=\"\(plotWidth)\" height=\"\(format(plotHeight))\" fill=\"none\" stroke=\"#ccc\"/>\n"
            var previousSeconds = 0.0
            for point in entry.points {
                let lossHeight = plotHeight * min(point.lossPercent, 100) / 100
                if lossHeight > 0 {
                    svg += "<rect x=\"\(format(x(previousSeconds)))\" y=\"\(format(top + plotHeight - lossHeight))\" width=\"\(format(max(0.5, x(point.seconds) - x(previousSeconds))))\" height=\"\(format(lossHeight))\" fill=\"#ddd\"/>\n"
                }
                let band = point.decodedWidth.map { layerColor($0, widths: layerWidths) } ?? color(point.state)
                svg += "<rect x=\"\(format(x(previousSeconds)))\" y=\"\(format(top + plotHeight + 4))\" width=\"\(format(max(0.5, x(point.seconds) - x(previousSeconds))))\" height=\"10\" fill=\"\(band)\"/>\n"
                previousSeconds = point.seconds
            }
            let line = entry.points.map { "\(format(x($0.seconds))),\(format(top + plotHeight - plotHeight * min($0.kbps, maximumKbps) / maximumKbps))" }
            svg += "<polyline fill=\"none\" stroke=\"#1f4e9c\" stroke-width=\"1.5\" points=\"\(line.joined(separator: " "))\"/>\n"
            func y(_ kbps: Double) -> String { format(top + plotHeight - plotHeight * min(kbps, maximumKbps) / maximumKbps) }
            let estimate = entry.points.compactMap { point in point.estimateKbps.map { "\(format(x(point.seconds))),\(y($0))" } }
            if !estimate.isEmpty {
                svg += "<polyline fill=\"none\" stroke=\"#e07b00\" stroke-width=\"1.5\" points=\"\(estimate.joined(separator: " "))\"/>\n"
            }
            let capacity = entry.points.compactMap { point in point.capacityKbps.map { "\(format(x(point.seconds))),\(y($0))" } }
            if !capacity.isEmpty {
                svg += "<polyline fill=\"none\" stroke=\"#555\" stroke-dasharray=\"4 3\" points=\"\(capacity.joined(separator: " "))\"/>\n"
            }
        }
        let axis = 60 + Double(series.count) * laneHeight
        let step = duration > 60 ? 10.0 : duration > 20 ? 5.0 : 1.0
        var tick = 0.0
        while tick <= duration {
            svg += "<text x=\"\(format(x(tick)))\" y=\"\(format(axis))\" text-anchor=\"middle\">\(Int(tick)) s</text>\n"
            tick += step
        }
        return svg + "</svg>\n"
    }

    private static func color(_ state: String) -> String {
        switch state {
        case "warned": "#f0a500"
        case "off": "#d62728"
        case "paused": "#4a90d9"
        default: "#2ca02c"
        }
    }

    /// Lighter for smaller pictures, darker for larger; grey before anything decoded.
    private static func layerColor(_ width: Int, widths: [Int]) -> String {
        guard let rank = widths.firstIndex(of: width) else { return "#bbb" }
        let shades = ["#9ecae1", "#4292c6", "#08519c", "#08306b"]
        return shades[min(rank * (shades.count - 1) / max(widths.count - 1, 1), shades.count - 1)]
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
