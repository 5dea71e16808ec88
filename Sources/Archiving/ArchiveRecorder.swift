import Dispatch
import Foundation
import MediaControl
import Signaling
import SignalingProtocol
import Synchronization

/// One archive being written: a thread of its own drains the ring the recording transport fills
/// and feeds its output (a file per stream, or one composed file), and stops it at the size and
/// disk limits. The directory's calls (streams added and ended, the stop) are queued for that
/// thread, so nothing of the recording is touched from two threads.
final class ArchiveRecorder: @unchecked Sendable {
    /// How often the thread wakes to drain the ring.
    static let drainInterval: UInt64 = 20_000_000

    /// How an archive ended, as its thread found it.
    struct Outcome: Sendable {
        var files: [ArchiveFile]
        var durationMs: Int64
        var size: Int64
        var cpuSeconds: Double
        var failure: (reason: ArchiveFailureReason, detail: String)?
    }

    /// What the recording looks like now, for `GET` while it runs.
    struct Progress: Sendable {
        var files: [ArchiveFile] = []
        var size: Int64 = 0
        var durationMs: Int64 = 0
        var cpuSeconds = 0.0
    }

    private enum Command {
        case add(ArchivedStream)
        case end(String)
    }

    let id: String
    let ring: RecordingRing
    private let directory: String
    private let limits: ArchivingConfiguration
    private let startedAt: UInt64
    private let commands = Mutex<[Command]>([])
    private let stopRequested = Atomic<Bool>(false)
    private let progressState = Mutex(Progress())
    private let finished = Mutex<(outcome: Outcome?, waiters: [CheckedContinuation<Outcome, Never>])>((nil, []))
    /// Called on the writer thread when the recording ends by itself (a limit or a failed write).
    private let onSelfStop: @Sendable (String) -> Void
    /// Called on the writer thread when the streams or their files change, and every few seconds.
    private let onManifestChange: @Sendable (String, Progress) -> Void

    /// Writer thread only.
    private let output: any ArchiveOutput
    private var lastKeyFrameRequestAt: UInt64 = 0
    private var passes = 0
    private var lastManifest: (files: Int, at: UInt64) = (0, 0)
    /// The longest the manifest goes unwritten while recording.
    static let manifestInterval: UInt64 = 2_000_000_000
    /// The least time between two requests for a key frame.
    static let keyFrameRequestInterval: UInt64 = 1_000_000_000

    /// - Parameter makeOutput: makes what the thread writes to, given the archive's start on the
    ///   monotonic clock.
    init(
        id: String, directory: String, limits: ArchivingConfiguration,
        makeOutput: (UInt64) throws(ArchiveWriteError) -> any ArchiveOutput,
        onSelfStop: @escaping @Sendable (String) -> Void,
        onManifestChange: @escaping @Sendable (String, Progress) -> Void
    ) throws(ArchiveWriteError) {
        self.id = id
        self.directory = directory
        self.limits = limits
        self.onSelfStop = onSelfStop
        self.onManifestChange = onManifestChange
        ring = RecordingRing(capacity: limits.ringPackets)
        startedAt = DispatchTime.now().uptimeNanoseconds
        output = try makeOutput(startedAt)
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "archive-\(id.prefix(8))"
        thread.start()
    }

    func add(_ stream: ArchivedStream) {
        commands.withLock { $0.append(.add(stream)) }
    }

    func end(_ streamId: String) {
        commands.withLock { $0.append(.end(streamId)) }
    }

    var progress: Progress { progressState.withLock { $0 } }

    /// Asks the thread to close everything, and waits for it.
    func stop() async -> Outcome {
        stopRequested.store(true, ordering: .releasing)
        return await withCheckedContinuation { continuation in
            let done: Outcome? = finished.withLock { state in
                if let outcome = state.outcome { return outcome }
                state.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func run() {
        var failure: (reason: ArchiveFailureReason, detail: String)?
        var lastSpaceCheck: UInt64 = 0
        while !stopRequested.load(ordering: .acquiring) {
            let now = DispatchTime.now().uptimeNanoseconds
            do throws(ArchiveWriteError) {
                try pass(now: now)
            } catch {
                failure = (.writeFailed, "\(error)")
                break
            }
            let size = output.size
            if size > limits.maximumBytesPerArchive {
                failure = (
                    .sizeLimit,
                    "its files reached \(size) bytes, over archives.maximumBytesPerArchive (\(limits.maximumBytesPerArchive))"
                )
                break
            }
            if now &- lastSpaceCheck > 1_000_000_000 {
                lastSpaceCheck = now
                if let free = Self.freeBytes(at: directory), free < limits.minimumFreeBytes {
                    failure = (
                        .diskFull,
                        "\(free) bytes free where it writes, under archives.minimumFreeBytes (\(limits.minimumFreeBytes))"
                    )
                    break
                }
            }
            usleep(UInt32(Self.drainInterval / 1000))
        }
        let now = DispatchTime.now().uptimeNanoseconds
        do throws(ArchiveWriteError) {
            if failure == nil { try pass(now: now) }
            try output.finish(now: now)
        } catch {
            failure = failure ?? (.writeFailed, "\(error)")
        }
        let final = progress(now: now)
        onManifestChange(id, final)
        let outcome = Outcome(
            files: final.files, durationMs: final.durationMs, size: final.size, cpuSeconds: final.cpuSeconds,
            failure: failure)
        if failure != nil { onSelfStop(id) }
        let waiters = finished.withLock { state in
            state.outcome = outcome
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: outcome) }
    }

    /// One wake-up: the directory's commands, the ring, what is ready to write.
    private func pass(now: UInt64) throws(ArchiveWriteError) {
        let pending = commands.withLock { queued in
            defer { queued.removeAll() }
            return queued
        }
        passes &+= 1
        var manifestChanged = false
        for command in pending {
            switch command {
            case .add(let stream):
                output.add(stream, now: now)
                manifestChanged = true
            case .end(let streamId):
                drainRing()
                try output.end(streamId, now: now)
                manifestChanged = true
            }
        }
        drainRing()
        try output.write(now: now)
        if output.needsKeyFrame(now: now), now &- lastKeyFrameRequestAt > Self.keyFrameRequestInterval {
            lastKeyFrameRequestAt = now
            ring.requestKeyFrame()
        }
        // What GET shows is refreshed every tenth pass; the manifest when a stream comes or goes, a
        // file opens, and every few seconds, so a crash leaves it at most that stale.
        guard manifestChanged || passes % 10 == 0 else { return }
        let current = progress(now: now)
        progressState.withLock { $0 = current }
        if manifestChanged || current.files.count != lastManifest.files
            || now &- lastManifest.at > Self.manifestInterval
        {
            lastManifest = (current.files.count, now)
            onManifestChange(id, current)
        }
    }

    private func progress(now: UInt64) -> Progress {
        let files = output.files
        return Progress(
            files: files, size: files.reduce(0) { $0 + $1.sizeBytes }, durationMs: milliseconds(at: now),
            cpuSeconds: Self.threadCPUSeconds())
    }

    private func drainRing() {
        ring.drain { packet in
            guard packet.bytes.count >= 12 else { return }
            let ssrc =
                UInt32(packet.bytes[8]) << 24 | UInt32(packet.bytes[9]) << 16 | UInt32(packet.bytes[10]) << 8
                | UInt32(packet.bytes[11])
            output.insert(packet, ssrc: ssrc)
        }
    }

    private func milliseconds(at time: UInt64) -> Int64 {
        Int64(bitPattern: time &- startedAt) / 1_000_000
    }

    /// CPU time of the calling thread.
    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func freeBytes(at path: String) -> Int64? {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return nil }
        return Int64(stats.f_bavail) * Int64(stats.f_frsize)
    }
}
