/// How a worker keeps media on time when it is offered more than one core can forward
/// (docs/capacity.md#overload). A publisher's packet that waited longer than the limit of its kind
/// since the kernel took it in is dropped, since it would arrive too late to play; the governor
/// (`OverloadGovernor`) keeps that rare by turning video off for a share of the worker's subscribers
/// while even its promptest packets wait more than `shedAbove` (it no longer catches up), newest
/// subscribers first, audio untouched, and back on as room allows; and a worker whose forwarding
/// would pass its budget admits no new subscriber.
public struct OverloadShedding: Equatable, Sendable {
    /// Off forwards every packet however late, and admits every subscriber.
    public var enabled: Bool
    /// Video that waited longer than this since the kernel took it in (in its socket, and behind the
    /// fan-out of the packets read before it) is dropped unforwarded.
    public var videoQueueLimit: Duration
    /// Audio likewise; longer than video's, so video goes first.
    public var audioQueueLimit: Duration
    /// The least wait of an evaluation above which the governor turns off another step of video.
    public var shedAbove: Duration
    /// The share of the worker's video subscribers one step turns off (or, halved, back on).
    public var stepShare: Double
    /// Calm (least waits under a quarter of `shedAbove`, room under `restoreBelowBusyShare`)
    /// that comes before each step back on; doubled, up to 16 times, each time a step back on is
    /// followed by shedding again.
    public var restoreAfter: Duration
    /// The share of a core the worker may fill when it turns video back on: a subscriber's video
    /// comes back only while the worker's forwarding, with that video's packets added at the cost
    /// per packet measured, stays below it.
    public var restoreBelowBusyShare: Double
    /// Packets per second one worker forwards before it admits no new subscriber: what this machine's
    /// worker carries with headroom (`switchyard-bench fanout` measures it). 0 admits everyone.
    public var forwardingBudget: Int
    /// Evaluations (100 ms each) in a row whose least wait passes `shedAbove` before a step off: one
    /// stall of the thread (the machine busy elsewhere for a moment) is no overload; a backlog that
    /// keeps growing is.
    public var evaluationsBeforeShedding: Int
    /// The share of a core below which a worker is not overloaded, whatever its packets waited: a key
    /// frame fanned out to a thousand subscribers holds the next packets back for a while, from a
    /// worker that is otherwise half idle. The share counts the worker's packet work (sockets, rings,
    /// its tick), not control work such as a crowd's joins: shedding video frees forwarding, so only
    /// forwarding that fills the core is cause to shed.
    public var busyShareToShed: Double

    public init(
        enabled: Bool = true, videoQueueLimit: Duration = .milliseconds(150), audioQueueLimit: Duration = .milliseconds(200),
        shedAbove: Duration = .milliseconds(20), stepShare: Double = 0.1, restoreAfter: Duration = .seconds(2),
        restoreBelowBusyShare: Double = 0.85, forwardingBudget: Int = 120_000, evaluationsBeforeShedding: Int = 2,
        busyShareToShed: Double = 0.8
    ) {
        self.busyShareToShed = busyShareToShed
        self.evaluationsBeforeShedding = evaluationsBeforeShedding
        self.enabled = enabled
        self.videoQueueLimit = videoQueueLimit
        self.audioQueueLimit = audioQueueLimit
        self.shedAbove = shedAbove
        self.stepShare = stepShare
        self.restoreAfter = restoreAfter
        self.restoreBelowBusyShare = restoreBelowBusyShare
        self.forwardingBudget = forwardingBudget
    }
}
