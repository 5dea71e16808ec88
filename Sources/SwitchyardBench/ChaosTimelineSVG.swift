import Foundation

/// Draws a chaos run: one lane of faults (from injected to lifted, coloured by kind, a tick where
/// every client was whole again, a black tick where every WebRTC client decoded again), one lane
/// per session (green while every client had media, red
/// while one had none), one per WebRTC client (decoding frames), one lane per node (its `/health` answers, red where one failed).
enum ChaosTimelineSVG {
    static let left = 150.0
    static let plotWidth = 1000.0
    static let laneHeight = 26.0

    static let kindColors: [String: String] = [
        ChaosFaultKind.nodeKilled.rawValue: "#c0392b", ChaosFaultKind.nodeDrained.rawValue: "#e67e22",
        ChaosFaultKind.nodeStopped.rawValue: "#8e44ad", ChaosFaultKind.databaseAway.rawValue: "#2c3e50",
        ChaosFaultKind.clientNetworkLost.rawValue: "#2980b9", ChaosFaultKind.slowReader.rawValue: "#16a085",
        ChaosFaultKind.clientCapped.rawValue: "#7f8c8d",
    ]

    static func render(_ chaos: BenchReport.Chaos, measuredSeconds: Double) -> String {
        let duration = max(1, measuredSeconds)
        func x(_ seconds: Double) -> Double { left + plotWidth * max(0, min(seconds, duration)) / duration }
        let sessionLanes = chaos.mediaTimeline.first?.sessionsWhole.count ?? 0
        let webrtcLanes = chaos.mediaTimeline.first?.webrtcWhole.count ?? 0
        let height = 90 + Double(1 + sessionLanes + webrtcLanes + chaos.nodes) * laneHeight + 40
        var svg = """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(left + plotWidth + 30))" height="\(Int(height))" font-family="sans-serif" font-size="11">
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(left)" y="20" font-size="14">switchyard-bench chaos: faults (bar: injected → lifted, tick: every client whole again), sessions' media, nodes' /health</text>

            """
        var legend = left
        for kind in ChaosFaultKind.allCases {
            svg += "<rect x=\"\(format(legend))\" y=\"30\" width=\"10\" height=\"10\" fill=\"\(kindColors[kind.rawValue] ?? "#999")\"/>"
            svg += "<text x=\"\(format(legend + 14))\" y=\"39\">\(kind.rawValue)</text>\n"
            legend += 140
        }
        var top = 60.0
        svg += "<text x=\"8\" y=\"\(format(top + 14))\">faults</text>\n"
        for fault in chaos.faults {
            let color = kindColors[fault.kind] ?? "#999"
            let width = max(2, x(fault.liftedSeconds) - x(fault.startSeconds))
            svg += "<rect x=\"\(format(x(fault.startSeconds)))\" y=\"\(format(top + 2))\" width=\"\(format(width))\" height=\"\(format(laneHeight - 8))\" fill=\"\(color)\"><title>\(escape("\(fault.kind) \(fault.target) \(fault.detail)"))</title></rect>\n"
            if let recovered = fault.recoveredSeconds {
                svg += "<line x1=\"\(format(x(recovered)))\" x2=\"\(format(x(recovered)))\" y1=\"\(format(top))\" y2=\"\(format(top + laneHeight - 4))\" stroke=\"\(color)\" stroke-width=\"2\"/>\n"
                svg += "<line x1=\"\(format(x(fault.liftedSeconds)))\" x2=\"\(format(x(recovered)))\" y1=\"\(format(top + laneHeight / 2))\" y2=\"\(format(top + laneHeight / 2))\" stroke=\"\(color)\" stroke-dasharray=\"2,2\"/>\n"
            }
            if let recovered = fault.webrtcRecoveredSeconds {
                svg += "<line x1=\"\(format(x(recovered)))\" x2=\"\(format(x(recovered)))\" y1=\"\(format(top + laneHeight / 2))\" y2=\"\(format(top + laneHeight))\" stroke=\"black\" stroke-width=\"2\"><title>WebRTC clients decoding again</title></line>\n"
            }
        }
        top += laneHeight
        // A lane per session, then per WebRTC client: green while it had media, red while not.
        let lanes: [(label: String, onColor: String, whole: (BenchReport.ChaosMediaPoint) -> Bool?)] =
            (0..<sessionLanes).map { session in ("session \(session) media", "#2ecc71", { session < $0.sessionsWhole.count ? $0.sessionsWhole[session] : nil }) }
            + (0..<webrtcLanes).map { client in ("WebRTC client \(client)", "#27ae60", { client < $0.webrtcWhole.count ? $0.webrtcWhole[client] : nil }) }
        for lane in lanes {
            svg += "<text x=\"8\" y=\"\(format(top + 14))\">\(lane.label)</text>\n"
            var previous = 0.0
            for point in chaos.mediaTimeline {
                guard let whole = lane.whole(point) else { continue }
                let color = whole ? lane.onColor : "#e74c3c"
                svg += "<rect x=\"\(format(x(previous)))\" y=\"\(format(top + 4))\" width=\"\(format(max(0.5, x(point.seconds) - x(previous))))\" height=\"\(format(laneHeight - 12))\" fill=\"\(color)\"/>\n"
                previous = point.seconds
            }
            top += laneHeight
        }
        for node in 0..<chaos.nodes {
            svg += "<text x=\"8\" y=\"\(format(top + 14))\">node \(node) /health</text>\n"
            for point in chaos.health.timeline where point.node == node {
                svg += "<rect x=\"\(format(x(point.seconds)))\" y=\"\(format(top + 4))\" width=\"\(format(max(1, plotWidth / duration)))\" height=\"\(format(laneHeight - 12))\" fill=\"\(point.ok ? "#a9dfbf" : "#e74c3c")\"/>\n"
            }
            top += laneHeight
        }
        for tick in stride(from: 0.0, through: duration, by: duration > 300 ? 60 : 10) {
            svg += "<text x=\"\(format(x(tick)))\" y=\"\(format(top + 16))\" text-anchor=\"middle\">\(Int(tick)) s</text>\n"
        }
        svg += "</svg>\n"
        return svg
    }

    private static func format(_ value: Double) -> String { String(format: "%.1f", value) }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
