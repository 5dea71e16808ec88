import Foundation
import SignalingProtocol
import SwitchyardClient
import Synchronization

/// One lasting client of a chaos session: the publisher, or a subscriber that keeps itself
/// subscribed to the publisher's stream (again after a move, when the stream comes back under a new
/// id). It notes every signal it receives, when it moved or reconnected, and when media last
/// arrived, for the invariants (monotonic nanoseconds).
final class ChaosClient: Sendable {
    struct State {
        /// Deliveries by signal token (the data up to its first `:`).
        var received: [String: Int] = [:]
        /// Where and when each delivery came, to name a duplicate's two deliveries.
        var receipts: [String: [String]] = [:]
        var movedAt: [UInt64] = []
        var reconnectedAt: [UInt64] = []
        var endedAt: UInt64?
        var subscriber: Subscriber?
        var subscriberEnded = false
        var packetsSeen: UInt64 = 0
        var lastMediaAt: UInt64 = 0
        /// Connection data of the connections the client saw leave (the slow readers carry theirs).
        var departedData: [String] = []
    }

    /// The stream name the session's publisher publishes under, which its subscribers look for.
    static let publisherStreamName = "chaos-publisher"

    let name: String
    let session: Session
    let publisher: Publisher?
    let state = Mutex(State())

    init(name: String, session: Session, publisher: Publisher?) {
        self.name = name
        self.session = session
        self.publisher = publisher
        Task { [self] in
            for await event in session.events {
                let now = MonotonicClock.now()
                switch event {
                case .signalReceived(_, let data, let from):
                    let token = String(data.prefix { $0 != ":" })
                    let connection = session.connection?.connectionId ?? "?"
                    state.withLock {
                        $0.received[token, default: 0] += 1
                        $0.receipts[token, default: []].append("at \(connection) from \(from ?? "REST") \(String(format: "%.2f", Double(now) / 1e9))")
                    }
                case .sessionDidMove: state.withLock { $0.movedAt.append(now) }
                case .sessionDidReconnect: state.withLock { $0.reconnectedAt.append(now) }
                case .sessionDidDisconnect: state.withLock { $0.endedAt = now }
                case .connectionDestroyed(let connection, _): state.withLock { $0.departedData.append(connection.data) }
                default: break
                }
            }
        }
    }

    var isSubscriber: Bool { publisher == nil }

    /// Subscribes again when the subscription ended or its stream went (a move publishes it anew),
    /// and notes whether media arrived since the last call.
    func tend(now: UInt64) async {
        guard isSubscriber else { return }
        let (current, ended) = state.withLock { ($0.subscriber, $0.subscriberEnded) }
        let streams = session.streams
        if session.connectionStatus == .connected,
            current == nil || ended || !streams.contains(where: { $0.streamId == current?.streamId }),
            let stream = streams.first(where: { $0.name == Self.publisherStreamName })
        {
            if let subscriber = try? await session.subscribe(to: stream.streamId) {
                state.withLock {
                    $0.subscriber = subscriber
                    $0.subscriberEnded = false
                    $0.packetsSeen = 0
                }
                Task { [self] in
                    for await event in subscriber.events where event == .subscriberDidEnd {
                        state.withLock { if $0.subscriber === subscriber { $0.subscriberEnded = true } }
                    }
                }
            }
        }
        guard let subscriber = state.withLock({ $0.subscriber }) else { return }
        let statistics = await subscriber.statistics()
        let packets = statistics.audio.packetsReceived + statistics.video.packetsReceived
        state.withLock { state in
            if packets != state.packetsSeen {
                state.packetsSeen = packets
                state.lastMediaAt = now
            }
        }
    }

    /// Whether the client is back: connected, and (a subscriber) receiving media that arrived after
    /// `since` and within the last `freshness` nanoseconds.
    func isWhole(since: UInt64, now: UInt64, freshness: UInt64) -> Bool {
        guard session.connectionStatus == .connected else { return false }
        guard isSubscriber else { return true }
        let last = state.withLock { $0.lastMediaAt }
        return last > since && now &- last <= freshness
    }

    /// Whether media arrived within the last `freshness` nanoseconds (a publisher: whether connected).
    func hasMedia(now: UInt64, freshness: UInt64) -> Bool {
        guard isSubscriber else { return session.connectionStatus == .connected }
        let last = state.withLock { $0.lastMediaAt }
        return last > 0 && now &- last <= freshness
    }

    /// What stands in the way of `isWhole`, for a report's error.
    func describe(now: UInt64) -> String {
        let (subscriber, ended, last) = state.withLock { ($0.subscriber, $0.subscriberEnded, $0.lastMediaAt) }
        var words = ["\(name) \(session.connectionStatus) at \(session.serverURL)"]
        if isSubscriber {
            words.append(subscriber == nil ? "no subscription" : "subscribed to \(subscriber!.streamId)\(ended ? " (ended)" : "")")
            words.append("media \(last == 0 ? "never" : String(format: "%.1f s ago", Double(now &- last) / 1e9))")
            words.append("streams \(session.streams.map(\.name))")
        }
        return words.joined(separator: ", ")
    }

    func deliveries(of token: String) -> Int { state.withLock { $0.received[token] ?? 0 } }

    func receipts(of token: String) -> [String] { state.withLock { $0.receipts[token] ?? [] } }

    /// Whether the client moved to another node (a new connection) between `from` and `to`.
    func moved(between from: UInt64, and to: UInt64) -> Bool {
        state.withLock { $0.movedAt.contains { $0 >= from && $0 <= to } }
    }
}
