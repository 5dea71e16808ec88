// The invariants of the `rtpwire` libFuzzer target (Fuzz/RTPWireFuzzTarget.swift): the RTPWire
// parsers. `make test` checks them on every seed in Fuzz/seeds/rtpwire (FuzzSeedTests), so they
// cannot drift from the code between campaigns; Fuzz/run.sh compiles this file INTO the RTPWire
// module (with -D FUZZ_TARGET), so internal API is in reach either way. There, `-assert-config Debug`
// keeps the standard library's bounds checks on buffer subscripts and slices under -O: a read past a
// packet that stays inside its allocation is caught by them, one past the allocation by
// AddressSanitizer.
//
// Every input goes through every parser, as a forwarder meets it:
// - RTP: parsed from an exactly sized copy and every accessor read; the payload handed to the VP8
//   and Opus parsers; then, in a copy with tail room, a few header extension edits (add, named
//   setters, remove, resize) and padding/payload trims, re-parsing after each.
// - RTCP: the compound parsed, every view and every typed packet read in full, the typed ones
//   written back with RTCPWriter and re-parsed; the packet at offset 0 and at one more offset forced
//   through every typed view whatever its type.
// - VP8 payload descriptor and Opus TOC on the whole input.
// Broken invariants call `fatalError`, which libFuzzer records as a crash with the input.
// The edits' parameters come from a hash of the input, so a saved crash input replays exactly.

#if !FUZZ_TARGET
    @testable import RTPWire
#endif

/// Stops with `message` when `condition` is false; libFuzzer saves the input as a crash.
@inline(__always)
private func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("RTPWire fuzz invariant: \(message())") }
}

/// Deterministic choices seeded from the input's FNV-1a hash (SplitMix64 after that).
struct FuzzChoices {
    var state: UInt64

    init(_ bytes: UnsafeRawBufferPointer) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = hash
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A value in `0..<bound`; 0 when `bound` is not positive.
    mutating func below(_ bound: Int) -> Int {
        bound > 0 ? Int(next() % UInt64(bound)) : 0
    }

    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}

enum RTPWireFuzzer {
    /// Checks one input; returns only when every invariant holds.
    static func check(_ input: UnsafeRawBufferPointer) {
        let exact = UnsafeMutableRawBufferPointer.allocate(byteCount: input.count, alignment: 16)
        defer { exact.deallocate() }
        if input.count > 0, let base = exact.baseAddress { base.copyMemory(from: input.baseAddress!, byteCount: input.count) }
        var choices = FuzzChoices(UnsafeRawBufferPointer(exact))
        rtp(exact, choices: &choices)
        rtcp(UnsafeRawBufferPointer(exact), choices: &choices)
        vp8(UnsafeRawBufferPointer(exact))
        opus(UnsafeRawBufferPointer(exact))
    }

    // MARK: RTP

    struct Element: Equatable {
        var id: UInt8
        var value: [UInt8]
    }

    struct ExtensionSnapshot {
        var elements: [Element] = []
        var usedLength = 0
        var dataLength = 0
    }

    static func rtp(_ exact: UnsafeMutableRawBufferPointer, choices: inout FuzzChoices) {
        guard let packet = try? RTPPacket(parsing: exact) else { return }
        let snapshot = readEverything(packet)
        // A forwarder hands the payload to the codec's descriptor parser.
        vp8(UnsafeRawBufferPointer(packet.payload))
        opus(UnsafeRawBufferPointer(packet.payload))
        edit(UnsafeRawBufferPointer(exact), snapshot: snapshot, choices: &choices)
    }

    /// Reads every accessor and checks it against the bytes; returns the extension elements.
    @discardableResult
    static func readEverything(_ packet: RTPPacket) -> ExtensionSnapshot {
        let storage = packet.storage
        let csrcCount = packet.csrcCount
        fuzzCheck(
            packet.headerLength + packet.payloadLength + packet.paddingLength == packet.length,
            "header \(packet.headerLength) + payload \(packet.payloadLength) + padding \(packet.paddingLength) != \(packet.length)")
        fuzzCheck(packet.length <= storage.count, "length past the buffer")
        fuzzCheck(packet.version == 2, "version")
        let minimumHeader = RTPPacket.fixedHeaderLength + 4 * csrcCount + (packet.hasExtension ? 4 : 0)
        fuzzCheck(packet.headerLength >= minimumHeader, "header shorter than its CSRCs and extension header")
        fuzzCheck(packet.payloadLength >= 0 && packet.paddingLength >= 0, "negative payload or padding")
        fuzzCheck(packet.hasPadding == (packet.paddingLength > 0), "P bit and padding length disagree")
        if packet.hasPadding {
            fuzzCheck(Int(storage[packet.length - 1]) == packet.paddingLength, "padding count")
        }
        var sink = UInt64(packet.payloadType) &+ (packet.marker ? 1 : 0) &+ UInt64(packet.sequenceNumber)
        sink &+= UInt64(packet.timestamp) &+ UInt64(packet.ssrc)
        for index in 0..<csrcCount { sink &+= UInt64(packet.csrc(at: index)) }
        fuzzCheck(packet.payloadType < 128, "payload type")
        fuzzCheck(
            packet.extensionHeaderOffset == (packet.hasExtension ? 12 + 4 * csrcCount : nil), "extension offset")
        if let profile = packet.extensionProfile {
            fuzzCheck(packet.extensionForm == HeaderExtensionForm(profile: profile), "extension form")
        }
        let payload = packet.payload
        fuzzCheck(payload.count == packet.payloadLength, "payload count")
        for byte in payload { sink &+= UInt64(byte) }
        for byte in packet.bytes { sink &+= UInt64(byte) }

        var snapshot = ExtensionSnapshot()
        if let headerOffset = packet.extensionHeaderOffset, let base = storage.baseAddress {
            let dataStart = headerOffset + 4
            let dataEnd = packet.headerLength
            snapshot.dataLength = dataEnd - dataStart
            fuzzCheck(snapshot.dataLength == 4 * Int(storage.uint16(at: headerOffset + 2)), "block length")
            let form = packet.extensionForm
            packet.forEachExtensionElement { id, value in
                let start = value.baseAddress.map { $0 - base } ?? -1
                fuzzCheck(
                    start >= dataStart && start + value.count <= dataEnd,
                    "element \(id) at \(start)+\(value.count) outside the block \(dataStart)..<\(dataEnd)")
                fuzzCheck(id != 0, "element with ID 0")
                if form == .oneByte {
                    fuzzCheck(id <= 14 && (1...16).contains(value.count), "one-byte element \(id)/\(value.count)")
                }
                snapshot.elements.append(Element(id: id, value: Array(value)))
                snapshot.usedLength = start + value.count - dataStart
            }
            if form == nil { fuzzCheck(snapshot.elements.isEmpty, "elements in a non-RFC 8285 block") }
        }
        var ids: [UInt8] = Array(0...15) + [16, 127, 128, 255]
        ids += snapshot.elements.map(\.id)
        for id in ids {
            let expected = snapshot.elements.first { $0.id == id }?.value
            fuzzCheck(packet.extensionElement(id: id).map { Array($0) } == expected, "lookup of ID \(id)")
            let text = expected.map { String(decoding: $0, as: UTF8.self) }
            fuzzCheck(
                packet.mid(id: id) == text && packet.rtpStreamID(id: id) == text
                    && packet.repairedRTPStreamID(id: id) == text,
                "string lookups of ID \(id)")
            let sendTime = packet.absoluteSendTime(id: id)
            fuzzCheck((sendTime != nil) == (expected?.count == 3), "abs-send-time of ID \(id)")
            if let sendTime { sink &+= sendTime.nanoseconds }
            fuzzCheck(
                (packet.transportSequenceNumber(id: id) != nil) == (expected?.count == 2),
                "transport-cc sequence number of ID \(id)")
            let level = packet.audioLevel(id: id)
            fuzzCheck((level != nil) == ((expected?.count ?? 0) >= 1), "audio level of ID \(id)")
            if let level { fuzzCheck(level.level <= 127, "audio level range") }
        }
        _ = sink
        return snapshot
    }

    /// Runs up to four edits on a copy with tail room, re-parsing and re-reading after each.
    static func edit(_ original: UnsafeRawBufferPointer, snapshot: ExtensionSnapshot, choices: inout FuzzChoices) {
        let capacity = original.count + 600
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        buffer.copyMemory(from: original)
        for index in original.count..<capacity { buffer[index] = 0xEE }
        guard var packet = try? RTPPacket(parsing: buffer, length: original.count) else {
            fatalError("RTPWire fuzz invariant: parses exactly sized but not with tail room")
        }
        var snapshot = snapshot
        for _ in 0..<(1 + choices.below(4)) {
            let before = Array(buffer[0..<packet.length])
            let tail = Array(buffer[packet.headerLength..<packet.length])
            var expected: [Element]?
            var exactRestore = false
            var keepsPayload = true
            switch choices.below(5) {
            case 0:
                // Add an absent ID, then remove it.
                guard let choice = absentElement(packet, snapshot, &choices) else { break }
                let (id, length, preferred) = choice
                let slot: UnsafeMutableRawBufferPointer
                do throws(RTPPacketError) {
                    slot = try packet.reserveExtensionElement(id: id, length: length, preferredForm: preferred)
                } catch {
                    fatalError("RTPWire fuzz invariant: adding ID \(id), \(length) bytes threw \(error)")
                }
                fuzzCheck(slot.count == length, "slot length")
                for index in slot.indices { slot[index] = choices.byte() }
                let value = Array(slot)
                let grown = reparse(buffer, packet, "adding ID \(id), \(length) bytes")
                fuzzCheck(
                    grown.elements == snapshot.elements + [Element(id: id, value: value)], "elements after adding ID \(id)")
                fuzzCheck(Array(buffer[packet.headerLength..<packet.length]) == tail, "payload after adding ID \(id)")
                fuzzCheck(packet.removeExtensionElement(id: id), "the added ID \(id) was not found to remove")
                fuzzCheck(!packet.removeExtensionElement(id: id), "the added ID \(id) was removed twice")
                expected = snapshot.elements
                // Without a block, or with one padded only to the next word, the bytes come back
                // exactly; spare padding words in the block may go.
                exactRestore =
                    before[0] & 0x10 == 0
                    || (snapshot.usedLength > 0 && snapshot.dataLength == (snapshot.usedLength + 3) & ~3)
            case 1:
                // A named setter, with an ID that may be out of range for the block's form. A refusal
                // must still leave a packet that parses.
                let id = UInt8(choices.below(20))
                let unique = snapshot.elements.filter { $0.id == id }.count <= 1
                do throws(RTPPacketError) {
                    switch choices.below(6) {
                    case 0:
                        let text = String(repeating: "m", count: choices.below(20))
                        try packet.setMid(text, id: id)
                        if unique { fuzzCheck(packet.mid(id: id) == text, "mid read back") }
                    case 1:
                        let text = String(repeating: "r", count: 1 + choices.below(3))
                        try packet.setRTPStreamID(text, id: id)
                        if unique { fuzzCheck(packet.rtpStreamID(id: id) == text, "rid read back") }
                    case 2:
                        try packet.setRepairedRTPStreamID("q", id: id)
                        if unique { fuzzCheck(packet.repairedRTPStreamID(id: id) == "q", "repaired rid read back") }
                    case 3:
                        let time = AbsoluteSendTime(value: UInt32(truncatingIfNeeded: choices.next()))
                        try packet.setAbsoluteSendTime(time, id: id)
                        if unique { fuzzCheck(packet.absoluteSendTime(id: id) == time, "abs-send-time read back") }
                    case 4:
                        let number = UInt16(truncatingIfNeeded: choices.next())
                        try packet.setTransportSequenceNumber(number, id: id)
                        if unique {
                            fuzzCheck(packet.transportSequenceNumber(id: id) == number, "transport-cc read back")
                        }
                    default:
                        let level = AudioLevelIndication(voiceActivity: choices.below(2) == 0, level: choices.byte())
                        try packet.setAudioLevel(level, id: id)
                        if unique { fuzzCheck(packet.audioLevel(id: id) == level, "audio level read back") }
                    }
                } catch {
                    // Refused (ID 0, ID 15 in the one-byte form, a value too long for the form, an
                    // opaque profile): checked below like any other outcome.
                }
            case 2:
                // Remove an ID, present or not: only its first element goes.
                let id =
                    snapshot.elements.isEmpty || choices.below(4) == 0
                    ? choices.byte() : snapshot.elements[choices.below(snapshot.elements.count)].id
                let removed = packet.removeExtensionElement(id: id)
                let position = snapshot.elements.firstIndex { $0.id == id }
                fuzzCheck(removed == (position != nil), "removing ID \(id) returned \(removed)")
                if let position {
                    var remaining = snapshot.elements
                    remaining.remove(at: position)
                    expected = remaining
                } else {
                    fuzzCheck(Array(buffer[0..<packet.length]) == before, "removing absent ID \(id) changed the packet")
                }
            case 3:
                // Resize an element that occurs once.
                let ids = snapshot.elements.map(\.id)
                let once = ids.filter { id in ids.filter { $0 == id }.count == 1 }
                guard !once.isEmpty, let form = packet.extensionForm else { break }
                let id = once[choices.below(once.count)]
                let old = snapshot.elements.first { $0.id == id }!.value.count
                var length = form == .oneByte ? 1 + choices.below(16) : choices.below(64)
                if length == old { length = form == .oneByte ? (old % 16) + 1 : old + 1 }
                do throws(RTPPacketError) {
                    let slot = try packet.reserveExtensionElement(id: id, length: length)
                    for index in slot.indices { slot[index] = choices.byte() }
                    expected = snapshot.elements.filter { $0.id != id } + [Element(id: id, value: Array(slot))]
                } catch {
                    fatalError("RTPWire fuzz invariant: resizing ID \(id) to \(length) bytes threw \(error)")
                }
            default:
                // Drop the padding, then change the payload length within the buffer.
                keepsPayload = false
                let payload = Array(packet.payload)
                packet.removePadding()
                fuzzCheck(!packet.hasPadding && packet.paddingLength == 0, "padding after removePadding")
                fuzzCheck(Array(packet.payload) == payload, "payload after removePadding")
                let newLength = choices.below(packet.payloadLength + 32)
                do throws(RTPPacketError) {
                    try packet.setPayloadLength(newLength)
                } catch {
                    fatalError("RTPWire fuzz invariant: setPayloadLength(\(newLength)) threw \(error)")
                }
                fuzzCheck(packet.payloadLength == newLength, "payload length after setPayloadLength")
                fuzzCheck(Array(packet.payload.prefix(min(newLength, payload.count))) == Array(payload.prefix(newLength)), "payload after setPayloadLength")
                expected = snapshot.elements
            }
            let after = reparse(buffer, packet, "an edit")
            if let expected { fuzzCheck(after.elements == expected, "elements after an edit") }
            if exactRestore { fuzzCheck(Array(buffer[0..<packet.length]) == before, "add-then-remove did not restore the bytes") }
            if keepsPayload {
                fuzzCheck(Array(buffer[packet.headerLength..<packet.length]) == tail, "an extension edit changed the payload")
            }
            snapshot = after
        }
    }

    /// Re-parses the packet `packet` says is in `buffer`, which must succeed and agree with it.
    static func reparse(
        _ buffer: UnsafeMutableRawBufferPointer, _ packet: RTPPacket, _ what: @autoclosure () -> String
    ) -> ExtensionSnapshot {
        let reparsed: RTPPacket
        do throws(RTPPacketError) {
            reparsed = try RTPPacket(parsing: buffer, length: packet.length)
        } catch {
            fatalError("RTPWire fuzz invariant: after \(what()) the packet does not parse: \(error)")
        }
        fuzzCheck(
            reparsed.headerLength == packet.headerLength && reparsed.paddingLength == packet.paddingLength,
            "after \(what()) the re-parse disagrees")
        // Read from an exactly sized view too, so a read past the packet trips the bounds checks.
        let exact = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<packet.length])
        guard let view = try? RTPPacket(parsing: exact) else { fatalError("RTPWire fuzz invariant: exact re-parse") }
        return readEverything(view)
    }

    /// An ID the packet lacks with a length its block (or a new one) can carry, and a preferred form.
    static func absentElement(
        _ packet: RTPPacket, _ snapshot: ExtensionSnapshot, _ choices: inout FuzzChoices
    ) -> (UInt8, Int, HeaderExtensionForm)? {
        let present = snapshot.elements.map(\.id)
        let preferred: HeaderExtensionForm = choices.below(2) == 0 ? .oneByte : .twoByte(appBits: choices.byte() & 0x0F)
        if packet.hasExtension && packet.extensionForm == nil {
            // An opaque profile refuses, and must leave the packet alone.
            var copy = packet
            let before = Array(packet.bytes)
            do throws(RTPPacketError) {
                _ = try copy.reserveExtensionElement(id: 1, length: 1)
                fatalError("RTPWire fuzz invariant: an element was added to a non-RFC 8285 block")
            } catch {
                fuzzCheck(error == .extensionProfileNotRFC8285(profile: packet.extensionProfile ?? 0), "\(error)")
            }
            fuzzCheck(Array(copy.bytes) == before, "refusing changed the packet")
            return nil
        }
        let ranges = packet.extensionForm ?? (choices.below(2) == 0 ? .oneByte : .twoByte(appBits: 0))
        switch ranges {
        case .oneByte:
            let free = (1...14).map(UInt8.init).filter { !present.contains($0) }
            guard !free.isEmpty else { return nil }
            return (free[choices.below(free.count)], 1 + choices.below(16), preferred)
        case .twoByte:
            let free = (1...255).map(UInt8.init).filter { !present.contains($0) }
            guard !free.isEmpty else { return nil }
            return (free[choices.below(free.count)], choices.below(choices.below(2) == 0 ? 17 : 256), preferred)
        }
    }

    // MARK: RTCP

    static func rtcp(_ bytes: UnsafeRawBufferPointer, choices: inout FuzzChoices) {
        if let compound = try? RTCPCompoundPacket(parsing: bytes) {
            var total = 0
            var views = 0
            var known = 0
            for view in compound.views {
                read(view)
                fuzzCheck(within(view.bytes, bytes), "view outside the compound")
                total += view.bytes.count
                views += 1
                if view.kind != nil { known += 1 }
            }
            fuzzCheck(total == bytes.count && views == compound.packetCount, "views do not tile the compound")
            var typed = 0
            for packet in compound {
                read(packet)
                roundTrip(packet)
                typed += 1
            }
            fuzzCheck(typed == known, "the iterator yielded \(typed) packets for \(known) known views")
        }
        // Views from offset 0 and one more, forced through every typed view regardless of their type.
        for offset in [0, choices.below(bytes.count)] where offset < bytes.count {
            guard let view = try? RTCPPacketView(parsing: UnsafeRawBufferPointer(rebasing: bytes[offset...])) else {
                continue
            }
            read(view)
            for kind in RTCPPacketKind.allCases {
                guard let packet = try? view.parsed(as: kind) else { continue }
                read(packet)
            }
        }
    }

    static func within(_ inner: UnsafeRawBufferPointer, _ outer: UnsafeRawBufferPointer) -> Bool {
        guard !inner.isEmpty else { return true }
        guard let innerBase = inner.baseAddress, let outerBase = outer.baseAddress else { return false }
        return innerBase >= outerBase && innerBase + inner.count <= outerBase + outer.count
    }

    static func read(_ view: RTCPPacketView) {
        let header = view.header
        fuzzCheck(header.version == 2 && header.packetByteCount == view.bytes.count, "header")
        fuzzCheck(view.count == header.count && view.packetType == header.packetType, "count and type")
        fuzzCheck(view.paddingByteCount >= 0 && view.byteCountWithoutPadding >= RTCPHeader.byteCount, "padding")
        fuzzCheck(view.body.count == view.byteCountWithoutPadding - RTCPHeader.byteCount, "body")
        fuzzCheck(within(view.body, view.bytes), "body outside the packet")
        _ = view.kind
    }

    static func read(_ packet: RTCPPacket) {
        var sink = 0
        switch packet {
        case .senderReport(let report):
            sink &+= Int(report.senderSSRC) &+ Int(report.ntpTimestamp & 0xFFFF) &+ Int(report.compactNTPTimestamp)
            sink &+= Int(report.rtpTimestamp) &+ Int(report.senderPacketCount) &+ Int(report.senderOctetCount)
            fuzzCheck(28 + 24 * report.reportBlockCount <= report.packet.byteCountWithoutPadding, "SR blocks")
            fuzzCheck(report.reportBlocks.count == report.reportBlockCount, "SR block count")
            for index in 0..<report.reportBlockCount {
                let block = report.reportBlock(at: index)
                fuzzCheck(block == report.reportBlocks[index], "SR block \(index)")
                read(block)
            }
        case .receiverReport(let report):
            sink &+= Int(report.senderSSRC)
            fuzzCheck(8 + 24 * report.reportBlockCount <= report.packet.byteCountWithoutPadding, "RR blocks")
            for index in 0..<report.reportBlockCount {
                let block = report.reportBlock(at: index)
                fuzzCheck(block == report.reportBlocks[index], "RR block \(index)")
                read(block)
            }
        case .sourceDescription(let description):
            var chunks = 0
            for chunk in description.chunks {
                chunks += 1
                sink &+= Int(chunk.ssrc)
                if let cname = chunk.cname {
                    fuzzCheck(within(cname, description.packet.bytes), "CNAME outside the packet")
                    sink &+= chunk.cnameString?.utf8.count ?? 0
                }
            }
            fuzzCheck(chunks == description.chunkCount, "SDES yielded \(chunks) of \(description.chunkCount) chunks")
        case .bye(let bye):
            fuzzCheck(bye.ssrcs.count == bye.ssrcCount, "BYE count")
            for index in 0..<bye.ssrcCount { sink &+= Int(bye.ssrc(at: index)) }
            if let reason = bye.reason {
                fuzzCheck(within(reason, bye.packet.bytes), "BYE reason outside the packet")
                sink &+= bye.reasonString?.utf8.count ?? 0
            }
        case .genericNACK(let nack):
            sink &+= Int(nack.senderSSRC) &+ Int(nack.mediaSSRC)
            var expected = 0
            for item in nack.items { expected += 1 + item.lostBitmask.nonzeroBitCount }
            var fromIterator: [UInt16] = []
            for number in nack.lostSequenceNumbers { fromIterator.append(number) }
            var fromCallback: [UInt16] = []
            nack.forEachLostSequenceNumber { fromCallback.append($0) }
            fuzzCheck(fromIterator.count == expected, "NACK iterator yielded \(fromIterator.count) of \(expected)")
            fuzzCheck(Set(fromIterator) == Set(fromCallback), "NACK iterator and callback disagree")
        case .pictureLossIndication(let pli):
            sink &+= Int(pli.senderSSRC) &+ Int(pli.mediaSSRC)
        case .fullIntraRequest(let fir):
            sink &+= Int(fir.senderSSRC) &+ Int(fir.mediaSSRC)
            fuzzCheck(!fir.items.isEmpty, "FIR without items")
            for item in fir.items { sink &+= Int(item.ssrc) &+ Int(item.sequenceNumber) }
        case .receiverEstimatedMaximumBitrate(let remb):
            sink &+= Int(remb.senderSSRC) &+ Int(remb.mediaSSRC)
            fuzzCheck(remb.bitrate >> remb.bitrateExponent == UInt64(remb.bitrateMantissa), "REMB bitrate overflows")
            fuzzCheck(remb.ssrcs.count == remb.ssrcCount, "REMB count")
            for ssrc in remb.ssrcs { sink &+= Int(ssrc) }
        case .transportFeedback(let feedback):
            sink &+= Int(feedback.senderSSRC) &+ Int(feedback.mediaSSRC) &+ Int(feedback.feedbackPacketCount)
            fuzzCheck(abs(feedback.referenceTime) < 1 << 23 || feedback.referenceTime == -(1 << 23), "reference time")
            sink &+= Int(feedback.referenceTimeMicroseconds)
            var results = 0
            var sequenceNumber = feedback.baseSequenceNumber
            for result in feedback.packetResults {
                fuzzCheck(result.sequenceNumber == sequenceNumber, "TWCC sequence numbers not consecutive")
                switch result.status {
                case .notReceived: fuzzCheck(result.receiveDeltaTicks == 0, "TWCC delta for a lost packet")
                case .receivedSmallDelta: fuzzCheck((0...255).contains(result.receiveDeltaTicks), "TWCC small delta")
                case .receivedLargeDelta: break
                }
                sink &+= result.receiveDeltaMicroseconds
                sequenceNumber &+= 1
                results += 1
            }
            fuzzCheck(
                results == feedback.packetStatusCount,
                "TWCC yielded \(results) of \(feedback.packetStatusCount) results after validation")
        case .malformed(let view, _):
            read(view)
        }
        _ = sink
    }

    static func read(_ block: RTCPReportBlock) {
        fuzzCheck(RTCPReportBlock.cumulativeLostRange.contains(block.cumulativeLost), "cumulative lost range")
        _ = block.roundTripTime(arrivalCompactNTP: block.lastSenderReport &+ block.delaySinceLastSenderReport &+ 1)
    }

    /// Writes a typed packet back with RTCPWriter; the result must parse to the same content.
    static func roundTrip(_ packet: RTCPPacket) {
        let written: [UInt8]
        do throws(RTCPError) {
            switch packet {
            case .senderReport(let report):
                written = try RTCPWriter.bytes { writer throws(RTCPError) in
                    try RTCPSenderReport.write(
                        senderSSRC: report.senderSSRC, ntpTimestamp: report.ntpTimestamp,
                        rtpTimestamp: report.rtpTimestamp, senderPacketCount: report.senderPacketCount,
                        senderOctetCount: report.senderOctetCount, reportBlocks: Array(report.reportBlocks),
                        into: &writer)
                }
            case .receiverReport(let report):
                written = try RTCPWriter.bytes { writer throws(RTCPError) in
                    try RTCPReceiverReport.write(
                        senderSSRC: report.senderSSRC, reportBlocks: Array(report.reportBlocks), into: &writer)
                }
            case .genericNACK(let nack):
                let lost = Array(nack.lostSequenceNumbers)
                written = try RTCPWriter.bytes(capacity: 64 + 4 * lost.count) { writer throws(RTCPError) in
                    try RTCPGenericNACK.write(
                        senderSSRC: nack.senderSSRC, mediaSSRC: nack.mediaSSRC, lostSequenceNumbers: lost,
                        into: &writer)
                }
            case .pictureLossIndication(let pli):
                written = try RTCPWriter.bytes { writer throws(RTCPError) in
                    try RTCPPictureLossIndication.write(senderSSRC: pli.senderSSRC, mediaSSRC: pli.mediaSSRC, into: &writer)
                }
            case .fullIntraRequest(let fir):
                let items = Array(fir.items)
                written = try RTCPWriter.bytes(capacity: 64 + 8 * items.count) { writer throws(RTCPError) in
                    try RTCPFullIntraRequest.write(senderSSRC: fir.senderSSRC, items: items, into: &writer)
                }
            case .receiverEstimatedMaximumBitrate(let remb):
                let ssrcs = Array(remb.ssrcs)
                written = try RTCPWriter.bytes(capacity: 64 + 4 * ssrcs.count) { writer throws(RTCPError) in
                    try RTCPReceiverEstimatedMaximumBitrate.write(
                        senderSSRC: remb.senderSSRC, bitrate: remb.bitrate, ssrcs: ssrcs, into: &writer)
                }
            case .transportFeedback(let feedback):
                let deltas: [Int16?] = feedback.packetResults.map { $0.status == .notReceived ? nil : $0.receiveDeltaTicks }
                written = try RTCPWriter.bytes(capacity: 64 + 4 * deltas.count) { writer throws(RTCPError) in
                    try RTCPTransportFeedback.write(
                        senderSSRC: feedback.senderSSRC, mediaSSRC: feedback.mediaSSRC,
                        baseSequenceNumber: feedback.baseSequenceNumber, referenceTime: feedback.referenceTime,
                        feedbackPacketCount: feedback.feedbackPacketCount, receiveDeltas: deltas, into: &writer)
                }
            case .sourceDescription, .bye, .malformed:
                // The writers take text, which the parsed bytes need not be.
                return
            }
        } catch {
            fatalError("RTPWire fuzz invariant: writing back a parsed \(packet) threw \(error)")
        }
        written.withUnsafeBytes { raw in
            guard let compound = try? RTCPCompoundPacket(parsing: raw), compound.packetCount == 1 else {
                fatalError("RTPWire fuzz invariant: a written-back packet does not parse")
            }
            var iterator = compound.makeIterator()
            guard let rewritten = iterator.next() else {
                fatalError("RTPWire fuzz invariant: a written-back packet is not a known kind")
            }
            switch (packet, rewritten) {
            case (.senderReport(let a), .senderReport(let b)):
                fuzzCheck(
                    a.senderSSRC == b.senderSSRC && a.ntpTimestamp == b.ntpTimestamp && a.rtpTimestamp == b.rtpTimestamp
                        && a.senderPacketCount == b.senderPacketCount && a.senderOctetCount == b.senderOctetCount
                        && Array(a.reportBlocks) == Array(b.reportBlocks),
                    "SR round trip")
            case (.receiverReport(let a), .receiverReport(let b)):
                fuzzCheck(
                    a.senderSSRC == b.senderSSRC && Array(a.reportBlocks) == Array(b.reportBlocks), "RR round trip")
            case (.genericNACK(let a), .genericNACK(let b)):
                fuzzCheck(
                    a.senderSSRC == b.senderSSRC && a.mediaSSRC == b.mediaSSRC
                        && Set(a.lostSequenceNumbers) == Set(b.lostSequenceNumbers),
                    "NACK round trip")
            case (.pictureLossIndication(let a), .pictureLossIndication(let b)):
                fuzzCheck(a.senderSSRC == b.senderSSRC && a.mediaSSRC == b.mediaSSRC, "PLI round trip")
            case (.fullIntraRequest(let a), .fullIntraRequest(let b)):
                fuzzCheck(a.senderSSRC == b.senderSSRC && Array(a.items) == Array(b.items), "FIR round trip")
            case (.receiverEstimatedMaximumBitrate(let a), .receiverEstimatedMaximumBitrate(let b)):
                fuzzCheck(
                    a.senderSSRC == b.senderSSRC && a.bitrate == b.bitrate && Array(a.ssrcs) == Array(b.ssrcs),
                    "REMB round trip: \(a.bitrate) became \(b.bitrate)")
            case (.transportFeedback(let a), .transportFeedback(let b)):
                let received = { (feedback: RTCPTransportFeedback) in
                    feedback.packetResults.map { ($0.sequenceNumber, $0.status == .notReceived, $0.receiveDeltaTicks) }
                }
                let ra = received(a)
                let rb = received(b)
                fuzzCheck(
                    a.senderSSRC == b.senderSSRC && a.mediaSSRC == b.mediaSSRC
                        && a.baseSequenceNumber == b.baseSequenceNumber && a.referenceTime == b.referenceTime
                        && a.feedbackPacketCount == b.feedbackPacketCount && ra.count == rb.count
                        && zip(ra, rb).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 },
                    "TWCC round trip")
            default:
                fatalError("RTPWire fuzz invariant: a written-back packet came back as another kind")
            }
        }
    }

    // MARK: VP8 and Opus

    static func vp8(_ bytes: UnsafeRawBufferPointer) {
        guard let descriptor = try? VP8PayloadDescriptor(parsing: bytes) else { return }
        let length = descriptor.length
        fuzzCheck((1...6).contains(length) && length <= bytes.count, "VP8 descriptor length \(length)")
        fuzzCheck(descriptor.firstPayloadHeaderByte == (length < bytes.count ? bytes[length] : nil), "VP8 payload header")
        fuzzCheck(descriptor.partitionIndex <= 7, "VP8 PID")
        fuzzCheck((descriptor.pictureID == nil) == (descriptor.pictureIDWidth == nil), "VP8 PictureID width")
        if let pictureID = descriptor.pictureID, let width = descriptor.pictureIDWidth {
            fuzzCheck(pictureID < width.modulus, "VP8 PictureID range")
        }
        fuzzCheck((descriptor.temporalLayerID ?? 0) <= 3 && (descriptor.keyIndex ?? 0) <= 31, "VP8 TID/KEYIDX range")
        fuzzCheck(descriptor.temporalLayerID != nil || !descriptor.isLayerSync, "VP8 Y without T")
        fuzzCheck(!descriptor.isKeyFrame || descriptor.isStartOfFrame, "VP8 key frame not at a frame start")
        // The descriptor alone parses the same; one byte less does not.
        var alone = descriptor
        alone.firstPayloadHeaderByte = nil
        fuzzCheck(
            (try? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))) == alone,
            "VP8 descriptor alone")
        if length > 1 {
            fuzzCheck(
                (try? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(rebasing: bytes[0..<(length - 1)]))) == nil,
                "VP8 descriptor one byte short parsed")
        }
        // Rewrites in an exactly sized copy of the descriptor keep its length.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
        defer { copy.deallocate() }
        copy.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
        var rewritten = alone
        let newPictureID = ~(descriptor.pictureID ?? 0)
        do throws(VP8DescriptorError) {
            try rewritten.rewrite(pictureID: newPictureID, in: copy)
            fuzzCheck(descriptor.pictureIDWidth != nil, "VP8 PictureID rewritten without I")
        } catch {
            fuzzCheck(error == .pictureIDAbsent && descriptor.pictureIDWidth == nil, "VP8 PictureID rewrite: \(error)")
        }
        do throws(VP8DescriptorError) {
            try rewritten.rewrite(tl0PictureIndex: ~(descriptor.tl0PictureIndex ?? 0), in: copy)
            fuzzCheck(descriptor.tl0PictureIndex != nil, "VP8 TL0PICIDX rewritten without L")
        } catch {
            fuzzCheck(error == .tl0PictureIndexAbsent && descriptor.tl0PictureIndex == nil, "VP8 TL0PICIDX rewrite: \(error)")
        }
        fuzzCheck((try? VP8PayloadDescriptor(parsing: copy)) == rewritten, "VP8 re-parse after rewriting")
    }

    static func opus(_ bytes: UnsafeRawBufferPointer) {
        guard let toc = try? OpusTableOfContents(parsing: bytes) else { return }
        fuzzCheck(toc.configuration < 32 && toc.frameCountCode < 4 && toc.payloadLength == bytes.count, "Opus TOC")
        fuzzCheck([120, 240, 480, 960, 1_920, 2_880].contains(toc.samplesPerFrame), "Opus frame size")
        fuzzCheck((1...48).contains(toc.frameCount), "Opus frame count \(toc.frameCount)")
        fuzzCheck(toc.packetSamples <= OpusTableOfContents.maximumPacketSamples, "Opus packet over 120 ms")
        fuzzCheck(toc.isDiscontinuousTransmission == (bytes.count <= 2), "Opus DTX")
        _ = (toc.frameDuration, toc.packetDuration, toc.packetDurationMicroseconds, toc.mode)
        _ = (toc.bandwidth.audioBandwidthHertz, toc.bandwidth.effectiveSampleRate, toc.isStereo)
    }
}
