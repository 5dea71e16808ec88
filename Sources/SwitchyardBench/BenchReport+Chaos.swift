import Foundation

extension BenchReport {
    /// The chaos scenario: sessions over a cluster while faults come one at a time; what each fault
    /// cost and whether every invariant held. Times in milliseconds, instants in seconds from the start.
    public struct Chaos: Codable, Sendable {
        public var nodes = 0
        public var sessions = 0
        public var clientsPerSession = 0
        public var nodeTimeoutSeconds = 0.0
        public var spacingSeconds = 0.0
        public var faults: [ChaosFault] = []
        /// Recovery (fault lifted → every client of every session connected with media again) by kind.
        public var recovery: [String: ChaosRecovery] = [:]
        /// Faults after whose recovery some client was without media again 2 s later.
        public var relapses = 0
        public var signals = ChaosSignals()
        /// `seq` numbers skipped over, summed over every client's every connection (0: no event lost).
        public var eventGaps = 0
        public var health = ChaosHealth()
        /// Each node's memory, descriptors and UDP sockets after the start and after each recovery.
        public var resources: [ChaosResourceSample] = []
        public var trends = ChaosTrends()
        /// Visitors join and leave each session while a fault is under way.
        public var visitorJoins = 0
        public var visitorJoinFailures = 0
        /// Of the slow readers, those the node cut off before their fault ended.
        public var slowReaders = 0
        public var slowReadersCut = 0
        /// Whether each session had media, once a second: the timeline's lanes.
        public var mediaTimeline: [ChaosMediaPoint] = []
        /// aiortc subscribers beside the plain clients, and their recovery by kind (fault lifted →
        /// every one of them decoding frames again), judged apart from the plain clients'.
        public var webrtcClients = 0
        public var webrtcRecovery: [String: ChaosRecovery] = [:]
        /// Subscriptions the WebRTC clients made in all (each move or reconnect is one more).
        public var webrtcSubscriptions = 0
        /// What each cap fault did to its subscriber and to everyone else.
        public var caps: [ChaosCap] = []
    }

    /// One subscriber's downlink capped by the kernel: its video before and under the cap (the
    /// cap's second half, once the router has had time to react), and after it lifted.
    public struct ChaosCap: Codable, Sendable {
        public var faultIndex: Int
        public var target: String
        public var capKbps: Int
        public var videoKbpsBefore: Double
        public var videoKbpsCapped: Double
        public var audioKbpsCapped: Double
        /// Whether the router told it its video was off (audio fallback) during the cap.
        public var videoDisabled: Bool
        /// From the cap lifted to video arriving again at half its rate before; nil if it did not.
        public var videoBackMs: Double?
        /// Other lasting clients (plain or WebRTC) that were without media at some point of the cap.
        public var othersWithoutMedia: [String]

        /// Whether its video gave way to the cap (under it, or off) while its audio went on.
        public var gaveWay: Bool { (videoDisabled || videoKbpsCapped <= Double(capKbps)) && audioKbpsCapped > 0 }
    }

    public struct ChaosFault: Codable, Sendable {
        public var index: Int
        public var kind: String
        /// The node's URL, or `session/client`.
        public var target: String
        public var startSeconds: Double
        public var liftedSeconds: Double
        /// When every client was whole again; nil if it never was within the wait.
        public var recoveredSeconds: Double?
        public var recoveryMs: Double?
        public var allowanceMs: Double
        /// When a killed or drained node answered `/health` again.
        public var nodeBackSeconds: Double?
        /// Clients without media again 2 s after the recovery, if any (a relapse).
        public var relapsed: [String]?
        public var detail: String = ""
        /// The same for the WebRTC clients (decoded frames again), with their own allowance; 0 and
        /// nil in a run without them.
        public var webrtcAllowanceMs = 0.0
        public var webrtcRecoveredSeconds: Double?
        public var webrtcRecoveryMs: Double?
    }

    public struct ChaosRecovery: Codable, Sendable {
        public var count = 0
        public var p50Ms: Double?
        public var maxMs: Double?
        public var allowanceMs = 0.0
        public var notRecovered = 0
    }

    public struct ChaosSignals: Codable, Sendable {
        public var sent = 0
        /// Per recipient: delivered once; delivered more than once; refused (error reply, not delivered);
        /// delivered although the reply was an error or never came.
        public var delivered = 0
        public var duplicated = 0
        public var refused = 0
        public var deliveredReplyLost = 0
        /// Accepted but never delivered: with the recipient or sender moving to another node around
        /// it (documented: the connection and what it was owed went with the node), and without.
        public var lostWithMove = 0
        public var lost = 0
        /// Never answered by the end of the run, nor delivered.
        public var unanswered = 0
        public var refusals: [String: Int] = [:]
        public var examples: [String] = []
    }

    public struct ChaosHealth: Codable, Sendable {
        public var samples = 0
        public var failures = 0
        /// Failures of a node outside its own faults (killed, drained, stopped, until it answered again).
        public var failuresOutsideOwnFaults = 0
        public var examples: [String] = []
        public var timeline: [ChaosHealthPoint] = []
    }

    public struct ChaosHealthPoint: Codable, Sendable {
        public var node: Int
        public var seconds: Double
        public var ok: Bool
    }

    public struct ChaosMediaPoint: Codable, Sendable {
        public var seconds: Double
        /// Per session: every client connected and every subscriber receiving.
        public var sessionsWhole: [Bool]
        /// Per WebRTC client: decoding frames.
        public var webrtcWhole: [Bool] = []
    }

    public struct ChaosResourceSample: Codable, Sendable {
        /// After which fault (-1: before the first).
        public var afterFault: Int
        public var node: Int
        public var pid: Int32
        /// Seconds the node's process had run.
        public var ageSeconds: Double
        public var rssMB: Double
        public var descriptors: Int
        public var udpSockets: Int
    }

    /// Least-squares slopes per fault over the samples taken after each recovery: descriptors and
    /// UDP sockets summed over the nodes (the load is the same at every sample, whichever node
    /// carries it); memory per node process (a restarted node starts a new series), the steepest.
    public struct ChaosTrends: Codable, Sendable {
        public var descriptorsPerFault: Double?
        public var udpSocketsPerFault: Double?
        public var rssMBPerFault: Double?
        /// The node process whose memory rose most steeply, and over how many samples.
        public var rssSteepestNode: String?
        public var rssSeriesJudged = 0
        /// The memory slope within every node process with 2 or more samples past its warm-up, their
        /// deviations from each process's own means pooled: growth with faults whatever a process's
        /// level, from processes too short-lived to be judged alone.
        public var rssMBPerFaultWithinProcesses: Double?
        public var rssProcessesPooled = 0
        public var descriptorsBound = 0.0
        public var udpSocketsBound = 0.0
        public var rssMBBound = 0.0
    }
}

extension BenchReport.Chaos {
    /// The chaos report's lines of the terminal table.
    var tableRows: [(String, String)] {
        func number(_ value: Double?, _ unit: String = "", digits: Int = 1) -> String {
            guard let value else { return "–" }
            return String(format: "%.\(digits)f", value) + unit
        }
        var rows: [(String, String)] = [
            (
                "chaos",
                "\(sessions) sessions of \(clientsPerSession) clients over \(nodes) nodes (node timeout \(number(nodeTimeoutSeconds, " s", digits: 0))), "
                    + "\(faults.count) faults \(number(spacingSeconds, " s", digits: 0)) apart after each recovery"
            )
        ]
        for kind in ChaosFaultKind.allCases {
            guard let recovery = recovery[kind.rawValue] else { continue }
            rows.append(
                (
                    "  \(kind.rawValue) ×\(recovery.count)",
                    "whole again p50 \(number(recovery.p50Ms.map { $0 / 1000 }, digits: 2)) / max \(number(recovery.maxMs.map { $0 / 1000 }, " s", digits: 2)) "
                        + "(allowed \(number(recovery.allowanceMs / 1000, " s", digits: 0)))" + (recovery.notRecovered > 0 ? ", \(recovery.notRecovered) never" : "")
                ))
        }
        for kind in ChaosFaultKind.allCases {
            guard let recovery = webrtcRecovery[kind.rawValue] else { continue }
            rows.append(
                (
                    "  WebRTC \(kind.rawValue) ×\(recovery.count)",
                    "frames again p50 \(number(recovery.p50Ms.map { $0 / 1000 }, digits: 2)) / max \(number(recovery.maxMs.map { $0 / 1000 }, " s", digits: 2)) "
                        + "(allowed \(number(recovery.allowanceMs / 1000, " s", digits: 0)))" + (recovery.notRecovered > 0 ? ", \(recovery.notRecovered) never" : "")
                ))
        }
        if webrtcClients > 0 { rows.append(("WebRTC clients", "\(webrtcClients) aiortc subscribers, \(webrtcSubscriptions) subscriptions in all")) }
        for cap in caps {
            rows.append(
                (
                    "  cap \(cap.capKbps) kbps on \(cap.target)",
                    "video \(number(cap.videoKbpsBefore)) → \(number(cap.videoKbpsCapped)) kbps\(cap.videoDisabled ? " (turned off)" : ""), audio \(number(cap.audioKbpsCapped)) kbps; "
                        + "video back \(number(cap.videoBackMs.map { $0 / 1000 }, " s", digits: 2)) after; \(cap.othersWithoutMedia.count) others affected"
                ))
        }
        rows.append(
            (
                "signals",
                "\(signals.sent) sent: \(signals.delivered) delivered once, \(signals.duplicated) twice, \(signals.refused) refused, "
                    + "\(signals.lostWithMove) lost with a move, \(signals.lost) lost otherwise, \(signals.unanswered) unanswered"
            ))
        rows.append(("relapses", "\(relapses) faults after whose recovery a client was without media again 2 s later"))
        rows.append(("event seq gaps", "\(eventGaps)"))
        rows.append(("/health", "\(health.samples) asked, \(health.failures) failed, \(health.failuresOutsideOwnFaults) outside the node's own faults"))
        rows.append(("visitors", "\(visitorJoins) joined and left during faults, \(visitorJoinFailures) could not join or receive"))
        rows.append(("slow readers", "\(slowReadersCut) of \(slowReaders) cut off by their node"))
        rows.append(
            (
                "trends per fault",
                "descriptors \(number(trends.descriptorsPerFault, digits: 2)), UDP sockets \(number(trends.udpSocketsPerFault, digits: 2)) (all nodes); "
                    + "RSS steepest \(number(trends.rssMBPerFault, " MB", digits: 2)) (\(trends.rssSteepestNode ?? "–"); \(trends.rssSeriesJudged) series), "
                    + "within processes \(number(trends.rssMBPerFaultWithinProcesses, " MB", digits: 2)) (\(trends.rssProcessesPooled) processes)"
            ))
        return rows
    }
}
