/// The receiving side of transport-wide congestion control: when each packet carrying the
/// transport-wide sequence number arrived, reported every `intervalNanoseconds` in the format browsers
/// expect (draft-holmer-rmcat-transport-wide-cc-extensions-01), so the sender's congestion control
/// sees the path. The router keeps one per publisher transport; `SwitchyardClient` one per subscriber
/// that asked for transport-wide feedback.
///
/// Arrival times live in a fixed ring by sequence number and the deltas in a buffer kept between
/// reports: recording an arrival allocates nothing. Not thread-safe: its owner's thread only.
public struct TransportFeedbackRecorder: Sendable {
    /// Packets remembered: a report covers at most this many.
    public static let capacity = 1024
    /// How often a report goes out while packets arrive; libwebrtc's receivers send one every 50 to
    /// 250 ms.
    public static let intervalNanoseconds: UInt64 = 50_000_000
    /// Most packets one report describes, so it fits one datagram.
    public static let maximumPacketsPerReport = 400

    private struct Arrival: Sendable {
        var sequence: Int64 = -1
        var time: UInt64 = 0
    }

    public let extensionID: UInt8
    private var arrivals = [Arrival](repeating: Arrival(), count: Self.capacity)
    private var deltas: [Int16?] = []
    /// The unwrapped sequence number of the newest packet, and of the first one not yet reported.
    private var newest: Int64?
    private var nextToReport: Int64 = 0
    private var lastReportAt: UInt64 = 0
    private var reportCount: UInt8 = 0
    /// The media SSRC the reports name (any of the publisher's: the feedback covers the transport).
    public private(set) var mediaSSRC: UInt32 = 0
    public private(set) var reportsSent: UInt64 = 0

    public init(extensionID: UInt8) {
        self.extensionID = extensionID
        deltas.reserveCapacity(Self.maximumPacketsPerReport)
    }

    /// Records a packet's arrival, if it carries the extension.
    public mutating func record(_ packet: RTPPacket, now: UInt64) {
        guard let sequenceNumber = packet.transportSequenceNumber(id: extensionID) else { return }
        mediaSSRC = packet.ssrc
        let sequence: Int64
        if let newest {
            sequence = newest + SequenceArithmetic.distance(from: UInt16(truncatingIfNeeded: newest), to: sequenceNumber)
            guard sequence >= nextToReport else { return }
            if sequence > newest { self.newest = sequence }
        } else {
            sequence = Int64(sequenceNumber)
            newest = sequence
            nextToReport = sequence
        }
        arrivals[Int(sequence & Int64(Self.capacity - 1))] = Arrival(sequence: sequence, time: now)
    }

    public func isReportDue(now: UInt64) -> Bool {
        guard let newest else { return false }
        return newest >= nextToReport && now &- lastReportAt >= Self.intervalNanoseconds
    }

    /// Writes the report that is due, if one is: every packet from the last report's end to the
    /// newest, each received with its arrival or lost. Returns false when nothing is due.
    public mutating func writeReport(
        senderSSRC: UInt32, now: UInt64, into writer: inout RTCPWriter
    ) throws(RTCPError) -> Bool {
        guard isReportDue(now: now), let newest else { return false }
        // What the ring no longer holds is gone; report from what it does.
        nextToReport = max(nextToReport, newest - Int64(Self.capacity) + 1)
        let end = min(newest, nextToReport + Int64(Self.maximumPacketsPerReport) - 1)
        guard let first = (nextToReport...end).first(where: { arrival(of: $0) != nil }), let firstTime = arrival(of: first)
        else {
            nextToReport = end + 1
            return false
        }
        let referenceUnits = Int64(firstTime / 1000) / Int64(RTCPTransportFeedback.referenceTimeUnitMicroseconds)
        var previous = referenceUnits * Int64(RTCPTransportFeedback.referenceTimeUnitMicroseconds)
        deltas.removeAll(keepingCapacity: true)
        var covered = nextToReport
        for sequence in nextToReport...end {
            guard let time = arrival(of: sequence) else {
                deltas.append(nil)
                covered = sequence
                continue
            }
            let microseconds = Int64(time / 1000)
            let ticks = (microseconds - previous) / Int64(RTCPTransportFeedback.deltaTickMicroseconds)
            // A delta past what 16 bits carry ends this report; the next starts from a new reference.
            guard let delta = Int16(exactly: ticks) else { break }
            deltas.append(delta)
            previous += ticks * Int64(RTCPTransportFeedback.deltaTickMicroseconds)
            covered = sequence
        }
        while deltas.last == .some(nil) {
            deltas.removeLast()
            covered -= 1
        }
        guard !deltas.isEmpty else { return false }
        try RTCPTransportFeedback.write(
            senderSSRC: senderSSRC, mediaSSRC: mediaSSRC, baseSequenceNumber: UInt16(truncatingIfNeeded: nextToReport),
            referenceTime: Int32(truncatingIfNeeded: referenceUnits), feedbackPacketCount: reportCount,
            receiveDeltas: deltas, into: &writer)
        reportCount &+= 1
        reportsSent &+= 1
        lastReportAt = now
        nextToReport = covered + 1
        return true
    }

    private func arrival(of sequence: Int64) -> UInt64? {
        let entry = arrivals[Int(sequence & Int64(Self.capacity - 1))]
        return entry.sequence == sequence ? entry.time : nil
    }
}
