import Foundation
import Glibc
import Synchronization

/// One WebRTC subscriber of a chaos session: aiortc (Tests/Interop/aiortc_peer.py `chaos-subscribe`)
/// in a process of its own, which keeps itself subscribed to the session's publisher through every
/// node in turn and prints what it decoded. The run reads those lines (from a file, every tend) to
/// judge the same invariant as for its plain clients: decoded frames again after each fault.
final class ChaosWebRTCClient: Sendable {
    struct State {
        var readOffset: UInt64 = 0
        var partialLine = ""
        var framesSeen = 0
        var lastMediaAt: UInt64 = 0
        /// When the frames decoded without a gap of `gap` or more up to `lastMediaAt` began.
        var runStartedAt: UInt64 = 0
        var subscriptions = 0
        var url = ""
        var losses: [String] = []
    }

    let name: String
    let process: ShellProcess
    private let outputPath: String
    private let state = Mutex(State())

    /// Starts `python3 <peer> chaos-subscribe` for `seconds`, through `urls` in turn (the first is its
    /// way in), subscribed to `streamName`; its lines go to `outputPath`, its stderr to `outputPath.err`.
    init(name: String, peer: String, urls: [String], sessionId: String, token: String, streamName: String, seconds: Double, outputPath: String) throws(BenchError) {
        self.name = name
        self.outputPath = outputPath
        let words =
            ["python3", peer, "chaos-subscribe", "--session", sessionId, "--token", token, "--stream-name", streamName, "--seconds", "\(Int(seconds.rounded(.up)))"]
            + urls.flatMap { ["--url", $0] }
        process = try ShellProcess(
            command: "exec \(words.map(ShellProcess.quote).joined(separator: " ")) </dev/null >\(ShellProcess.quote(outputPath)) 2>\(ShellProcess.quote(outputPath + ".err"))")
    }

    /// Reads what the peer printed since the last call; decoded frames since then make `now` the
    /// last media instant.
    func tend(now: UInt64) {
        guard let handle = FileHandle(forReadingAtPath: outputPath) else { return }
        defer { try? handle.close() }
        state.withLock { state in
            try? handle.seek(toOffset: state.readOffset)
            guard let data = try? handle.readToEnd(), !data.isEmpty else { return }
            state.readOffset += UInt64(data.count)
            var text = state.partialLine + String(decoding: data, as: UTF8.self)
            if let lastBreak = text.lastIndex(of: "\n") {
                state.partialLine = String(text[text.index(after: lastBreak)...])
                text = String(text[..<lastBreak])
            } else {
                state.partialLine = text
                return
            }
            for line in text.split(separator: "\n") { Self.apply(ChaosWebRTCLine(line), to: &state, now: now) }
        }
    }

    static func apply(_ line: ChaosWebRTCLine?, to state: inout State, now: UInt64) {
        switch line {
        case .frames(let total):
            if total != state.framesSeen {
                state.framesSeen = total
                if state.lastMediaAt == 0 || now &- state.lastMediaAt >= gap { state.runStartedAt = now }
                state.lastMediaAt = now
            }
        case .subscribed(let url):
            state.subscriptions += 1
            state.url = url
        case .lost(let reason):
            state.losses.append(reason)
            if state.losses.count > 5 { state.losses.removeFirst() }
        case nil: break
        }
    }

    /// A pause in decoded frames this long ends a run of them: aiortc prints its totals every
    /// 0.2 s while frames come, and the run reads them every 0.2 s.
    static let gap: UInt64 = 600_000_000
    /// How long frames must have come without a gap, and the fault been lifted, before the client
    /// counts as decoding again. Frames decoded just after a fault are no recovery: aiortc's jitter
    /// buffer and decoder still empty themselves for a moment after its media stopped.
    static let steady: UInt64 = 2_000_000_000

    /// When the client decoded again after a fault lifted at `since`: the start of its run of frames
    /// without a gap (`since` itself when the fault never broke it), once that run has lasted
    /// `steady` and `since` is `steady` ago; nil until then.
    func resumed(since: UInt64, now: UInt64) -> UInt64? {
        state.withLock { Self.resumed(state: $0, since: since, now: now) }
    }

    static func resumed(state: State, since: UInt64, now: UInt64) -> UInt64? {
        guard state.lastMediaAt > 0, now &- state.lastMediaAt < gap, now >= since + steady, now &- state.runStartedAt >= steady else { return nil }
        return max(since, state.runStartedAt)
    }

    func hasMedia(now: UInt64, freshness: UInt64) -> Bool {
        let last = state.withLock { $0.lastMediaAt }
        return last > 0 && now &- last <= freshness
    }

    /// How many times it subscribed (1 for a run without a move).
    var subscriptions: Int { state.withLock { $0.subscriptions } }

    func describe(now: UInt64) -> String {
        let state = state.withLock { $0 }
        let media = state.lastMediaAt == 0 ? "never" : String(format: "%.1f s ago", Double(now &- state.lastMediaAt) / 1e9)
        return "\(name) (aiortc\(process.isRunning ? "" : ", exited")) last subscribed at \(state.url), frames \(media), lately: \(state.losses.joined(separator: " / "))"
    }

    /// Ends the peer with SIGKILL and removes its output, from a signal handler: nothing to wait on.
    func endAtOnce() {
        kill(process.pid, SIGKILL)
        unlink(outputPath)
        unlink(outputPath + ".err")
    }

    /// Ends the peer (SIGTERM, then SIGKILL after 5 s) and removes its output.
    func stop() async {
        if process.isRunning {
            kill(process.pid, SIGTERM)
            let deadline = ContinuousClock.now + .seconds(5)
            while process.isRunning, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(100)) }
            if process.isRunning { kill(process.pid, SIGKILL) }
            _ = await process.waitForExit()
        }
        unlink(outputPath)
        unlink(outputPath + ".err")
    }
}

/// One line `aiortc_peer.py chaos-subscribe` prints; nil for a line that is none of them.
enum ChaosWebRTCLine: Equatable {
    /// Video and audio frames decoded in all, since the peer started.
    case frames(Int)
    case subscribed(url: String)
    case lost(reason: String)

    init?(_ line: Substring) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
        switch object["event"] as? String {
        case "frames":
            guard let video = object["video"] as? Int, let audio = object["audio"] as? Int else { return nil }
            self = .frames(video + audio)
        case "subscribed": self = .subscribed(url: object["url"] as? String ?? "?")
        case "lost": self = .lost(reason: object["reason"] as? String ?? "?")
        default: return nil
        }
    }
}
