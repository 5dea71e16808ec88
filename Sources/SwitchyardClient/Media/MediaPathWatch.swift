/// Whether one media path works, judged by progress: a subscriber's path progresses with every
/// packet, a publisher's when the router's receiver reports show it received more. No progress for
/// `silence` while progress is expected breaks the path; the next progress mends it. Each change is
/// reported once.
struct MediaPathWatch {
    let silence: UInt64
    private var lastProgressAt: UInt64?
    private(set) var isBroken = false

    init(silence: UInt64, isBroken: Bool = false) {
        self.silence = silence
        self.isBroken = isBroken
    }

    /// Something got through. Returns true when this mends a broken path.
    mutating func progressed(now: UInt64) -> Bool {
        lastProgressAt = now
        guard isBroken else { return false }
        isBroken = false
        return true
    }

    /// The timer. Returns true when the path breaks now: progress was expected (`expecting`) and
    /// none came for `silence`. Before the first progress nothing is judged.
    mutating func check(now: UInt64, expecting: Bool) -> Bool {
        guard !expecting else {
            guard !isBroken, let lastProgressAt, now - lastProgressAt >= silence else { return false }
            isBroken = true
            return true
        }
        // Nothing is due (video and audio off): silence now says nothing about the path.
        if lastProgressAt != nil { lastProgressAt = now }
        return false
    }
}
