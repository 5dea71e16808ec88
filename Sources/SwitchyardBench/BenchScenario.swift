/// The load shapes the bench knows.
public enum BenchScenario: String, CaseIterable, Codable, Sendable {
    /// One publisher (audio and video) to N subscribers.
    case fanout
    /// N participants, each publishing and subscribing to everyone else.
    case room
    /// One audio-only publisher to N subscribers.
    case audioOnly = "audio-only"
    /// Connect → subscribe → first decoded frame, one client after another.
    case join
    /// A schedule of impairments on some subscribers while the others stay clean; the audio-fallback timings.
    case fallback
    /// A bounded long fanout that watches memory and error counts.
    case soak
    /// A client loses its network (WebSocket and media) for each of a list of durations and comes
    /// back; what it takes to return, and what the others see.
    case reconnect
    /// Steps of a subscriber's downlink capacity; how the router's estimate follows them.
    case bandwidth
    /// A three-layer simulcast publisher, subscribers with preferred resolutions, some with downlink
    /// caps on a schedule; which layer each gets, and how fast it moves down and back up.
    case simulcast
    /// A room whose participants publish audio with RFC 6464 levels and take turns talking while the
    /// others make background noise: how soon the listeners hear who speaks, whether the choice stays
    /// put while one talks, what forwarding only the loudest saves, and what level tracking costs.
    case speakers
    /// Sessions over the nodes of a running cluster (every `--server`): where they are placed and
    /// how long that takes, REST signals through the session's node and through another, and with
    /// `--kill-pid`, how long the clients of a killed node take to be back on another.
    case cluster
    /// A 1 → N session churning joins and leaves, several at once, against a daemon that sends
    /// signed webhooks to a receiver in the bench: whether every event the churn caused arrives, in
    /// order, once, correctly signed, how late, and what sending them costs the daemon per event.
    case webhooks
    /// Sessions over a running cluster (every `--server` with its `--node-pid`) while faults come
    /// one at a time: nodes killed, drained and stopped, PostgreSQL away, clients losing their
    /// network or not reading; whether every signal arrives once, every client is whole again in
    /// time, no event is lost, `/health` answers and no node grows.
    case chaos
    /// An audio-only publisher sending Opus as RFC 2198 redundant audio (RED) to subscribers behind
    /// the same random loss, half of them taking RED and half the primary frames alone: how many lost
    /// frames each half had to conceal.
    case red
    /// One session created with connection events suppressed: a publisher, a moderator who hears
    /// every join and leave, and N signaling-only viewers joining at a set rate, then leaving all
    /// at once; join latency, the daemon's memory per connection, the events each role got, and
    /// how long the crowd takes to leave.
    case broadcast
    /// What recording costs: a 1 → N session forwarding with and without an individual archive (the
    /// daemon's CPU per forwarded packet), a session of many publishers recorded individually (the
    /// writer's drops), and composed archives of 4 and 9 publishers (the composer's CPU per frame).
    case archive
}
