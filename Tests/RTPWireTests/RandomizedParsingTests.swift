import Testing
import TestSupport

@testable import RTPWire

/// Randomized robustness tests for the RTP packet view (with its header extensions), the VP8 payload
/// descriptor and the Opus TOC. RTCP has its own in `RTCPCompoundPacketTests.mutatedInputNeverTraps`.
///
/// Every input comes from a fixed seed, so a failure reproduces on every run. Inputs are purely random
/// bytes (lengths 0–64, one in ten up to 1500) and valid packets with bit flips, byte overwrites and
/// truncations. Each must parse or throw the parser's typed error; a trap fails the run. Whatever parses
/// is read in full from an exactly sized buffer, so that a read past the end traps in debug builds, and
/// checked against invariants or an independent oracle. Broken invariants are recorded with the input
/// in hex (at most ten per test) so that they can be pasted into a golden.
///
/// `Fuzz/` drives the same parsers under libFuzzer for longer runs; see docs/fuzzing.md.
@Suite struct RandomizedParsingTests {
    // MARK: RTP

    @Test func rtpPacketsFromRandomBytes() {
        var generator = SeededGenerator(seed: 0x5254_5052_414E_4430)
        let checker = Checker()
        var tally = RTPTally()
        for index in 0..<1_500 {
            var bytes = ByteMutations.randomBytes(using: &generator)
            // Half the inputs get V=2 so that they reach past the version check.
            if index % 2 == 0, !bytes.isEmpty { bytes[0] = bytes[0] & 0x3F | 0x80 }
            Self.exerciseRTP(bytes, checker: checker, tally: &tally, using: &generator)
        }
        #expect(tally.inputs == 1_500)
        #expect(tally.parsed >= 50, "random bytes parsed as RTP: \(tally.parsed)")
        #expect(tally.errors.count >= 6, "error cases reached: \(tally.errors.sorted())")
        #expect(checker.failures == 0)
    }

    @Test func rtpPacketsFromMutatedValidPackets() {
        let seeds = Self.rtpSeeds()
        var generator = SeededGenerator(seed: 0x5254_504D_5554_4154)
        let checker = Checker()
        var tally = RTPTally()
        for seed in seeds {
            Self.exerciseRTP(seed, checker: checker, tally: &tally, using: &generator)
        }
        #expect(tally.parsed == seeds.count, "every seed must parse before it is mutated")
        for _ in 0..<3_500 {
            let seed = seeds.randomElement(using: &generator)!
            Self.exerciseRTP(ByteMutations.mutated(seed, using: &generator), checker: checker, tally: &tally, using: &generator)
        }
        // Most single-byte changes land in payloads or leave the framing valid, so a healthy share
        // must still parse: the success paths, extension edits included, are what get exercised.
        #expect(tally.parsed * 100 >= tally.inputs * 40, "parsed \(tally.parsed) of \(tally.inputs)")
        #expect(tally.elementsSeen >= 1_500, "extension elements iterated: \(tally.elementsSeen)")
        #expect(tally.exactRestores >= 500, "add-then-remove restored the bytes exactly \(tally.exactRestores) times")
        #expect(tally.equivalentRestores >= 50, "add-then-remove kept the elements \(tally.equivalentRestores) times")
        #expect(tally.replacements >= 300, "existing elements resized: \(tally.replacements)")
        #expect(tally.opaqueRefusals >= 20, "adds refused for a non-RFC 8285 profile: \(tally.opaqueRefusals)")
        // Every parse error RTPPacket(parsing:) can throw.
        #expect(tally.errors.count == 10, "error cases reached: \(tally.errors.sorted())")
        #expect(checker.failures == 0)
    }

    /// Lookups cover every one-byte ID (0 and 15 are never found) and a few two-byte-only IDs.
    static let lookupIDs: [UInt8] = Array(0...15) + [16, 20, 64, 127, 128, 200, 255]

    struct RTPTally {
        var inputs = 0
        var parsed = 0
        var errors: Set<String> = []
        var elementsSeen = 0
        /// Add-then-remove on a packet without an extension block, or with a tightly padded one.
        var exactRestores = 0
        /// Add-then-remove where the block's spare padding words may go: elements and payload kept.
        var equivalentRestores = 0
        var replacements = 0
        var opaqueRefusals = 0
    }

    struct Element: Equatable {
        var id: UInt8
        var value: [UInt8]
    }

    /// What a parsed packet's extension block holds, as `forEachExtensionElement` reports it.
    struct ExtensionSnapshot {
        var elements: [Element] = []
        /// Bytes from the start of the block's data to the end of its last element.
        var usedLength = 0
        /// The block's data length from its header; 0 without a block.
        var dataLength = 0
    }

    static func exerciseRTP(
        _ input: [UInt8], checker: Checker, tally: inout RTPTally, using generator: inout SeededGenerator
    ) {
        tally.inputs += 1
        checker.input = input
        // First from an exactly sized buffer: every read past the packet's end traps.
        var exact = input
        let parsed: (headerLength: Int, snapshot: ExtensionSnapshot)? = exact.withUnsafeMutableBytes { buffer in
            let packet: RTPPacket
            do throws(RTPPacketError) {
                packet = try RTPPacket(parsing: buffer)
            } catch {
                tally.errors.insert(caseName(error))
                return nil
            }
            return (packet.headerLength, readEverything(packet, checker: checker))
        }
        guard let parsed else { return }
        checker.check(exact == input, "reading changed the bytes")
        tally.parsed += 1
        tally.elementsSeen += parsed.snapshot.elements.count
        addThenRemove(input, parsed.headerLength, parsed.snapshot, checker: checker, tally: &tally, using: &generator)
        replaceAndTrim(input, parsed.headerLength, parsed.snapshot, checker: checker, tally: &tally, using: &generator)
    }

    /// Reads every accessor of a parsed packet and checks them against the bytes and each other.
    static func readEverything(_ packet: RTPPacket, checker: Checker) -> ExtensionSnapshot {
        let input = checker.input
        let csrcCount = packet.csrcCount
        checker.check(packet.length == input.count, "length \(packet.length)")
        checker.check(
            packet.headerLength + packet.payloadLength + packet.paddingLength == packet.length,
            "header \(packet.headerLength) + payload \(packet.payloadLength) + padding \(packet.paddingLength)")
        checker.check(packet.version == 2, "version")
        let minimumHeader = RTPPacket.fixedHeaderLength + 4 * csrcCount + (packet.hasExtension ? 4 : 0)
        checker.check(packet.headerLength >= minimumHeader, "header length \(packet.headerLength) < \(minimumHeader)")
        checker.check(packet.payloadLength >= 0, "negative payload length")
        checker.check(packet.hasPadding == (packet.paddingLength > 0), "P bit and padding length disagree")
        if packet.hasPadding { checker.check(Int(input[input.count - 1]) == packet.paddingLength, "padding count") }
        checker.check(packet.bytes.count == packet.length, "bytes")
        checker.check(packet.payloadOffset == packet.headerLength, "payload offset")
        checker.check(packet.payloadType < 128, "payload type")
        checker.check(packet.marker == (input[1] & 0x80 != 0), "marker")
        checker.check(
            packet.sequenceNumber == UInt16(input[2]) << 8 | UInt16(input[3])
                && packet.timestamp == be32(input, 4) && packet.ssrc == be32(input, 8),
            "fixed header fields")
        for index in 0..<csrcCount {
            checker.check(packet.csrc(at: index) == be32(input, 12 + 4 * index), "CSRC \(index)")
        }
        checker.check(
            packet.extensionHeaderOffset == (packet.hasExtension ? 12 + 4 * csrcCount : nil), "extension offset")
        if let profile = packet.extensionProfile {
            checker.check(packet.extensionForm == HeaderExtensionForm(profile: profile), "extension form")
        } else {
            checker.check(packet.extensionForm == nil, "extension form without a block")
        }
        let payload = packet.payload
        checker.check(payload.count == packet.payloadLength, "payload count")
        checker.check(
            Array(payload) == Array(input[packet.headerLength..<(packet.headerLength + packet.payloadLength)]),
            "payload bytes")

        let snapshot = extensionSnapshot(of: packet, checker: checker)
        for id in lookupIDs {
            let expected = snapshot.elements.first { $0.id == id }?.value
            checker.check(packet.extensionElement(id: id).map { Array($0) } == expected, "lookup of ID \(id)")
            let text = expected.map { String(decoding: $0, as: UTF8.self) }
            checker.check(
                packet.mid(id: id) == text && packet.rtpStreamID(id: id) == text
                    && packet.repairedRTPStreamID(id: id) == text,
                "string lookups of ID \(id)")
            let sendTime = packet.absoluteSendTime(id: id)
            checker.check((sendTime != nil) == (expected?.count == 3), "abs-send-time of ID \(id)")
            if let sendTime, let expected {
                checker.check(sendTime.value == be24(expected, 0), "abs-send-time value")
                checker.check(sendTime.nanoseconds < 64_000_000_000, "abs-send-time range")
            }
            let sequenceNumber = packet.transportSequenceNumber(id: id)
            checker.check((sequenceNumber != nil) == (expected?.count == 2), "transport-cc sequence of ID \(id)")
            let level = packet.audioLevel(id: id)
            checker.check((level != nil) == ((expected?.count ?? 0) >= 1), "audio level of ID \(id)")
            if let level, let first = expected?.first {
                checker.check(level.level == first & 0x7F && level.voiceActivity == (first & 0x80 != 0), "audio level")
            }
        }
        return snapshot
    }

    /// The elements of the packet's extension block, each checked to lie within the block.
    static func extensionSnapshot(of packet: RTPPacket, checker: Checker) -> ExtensionSnapshot {
        var snapshot = ExtensionSnapshot()
        guard let headerOffset = packet.extensionHeaderOffset, let base = packet.storage.baseAddress else {
            return snapshot
        }
        let dataStart = headerOffset + 4
        let dataEnd = packet.headerLength
        snapshot.dataLength = dataEnd - dataStart
        checker.check(
            snapshot.dataLength == 4 * Int(be16(Array(packet.bytes), headerOffset + 2)), "block length")
        let form = packet.extensionForm
        packet.forEachExtensionElement { id, value in
            let start = value.baseAddress.map { $0 - base } ?? -1
            checker.check(
                start >= dataStart && start + value.count <= dataEnd,
                "element \(id) at \(start)+\(value.count) outside the block \(dataStart)..<\(dataEnd)")
            checker.check(id != 0, "element with ID 0")
            if form == .oneByte {
                checker.check(id <= 14 && (1...16).contains(value.count), "one-byte element \(id)/\(value.count)")
            }
            snapshot.elements.append(Element(id: id, value: Array(value)))
            snapshot.usedLength = start + value.count - dataStart
        }
        if form == nil { checker.check(snapshot.elements.isEmpty, "elements in a non-RFC 8285 block") }
        return snapshot
    }

    /// Adds an element whose ID the packet lacks, then removes it, in a buffer with tail room; both
    /// results must parse and keep the other elements, the payload and the padding. A packet without
    /// a block, or with a block padded only to the next word, must come back byte for byte.
    static func addThenRemove(
        _ input: [UInt8], _ headerLength: Int, _ snapshot: ExtensionSnapshot,
        checker: Checker, tally: inout RTPTally, using generator: inout SeededGenerator
    ) {
        var storage = input + [UInt8](repeating: 0xEE, count: 320)
        let tail = Array(input[headerLength...])
        storage.withUnsafeMutableBytes { buffer in
            guard var packet = try? RTPPacket(parsing: buffer, length: input.count) else {
                checker.check(false, "parses exactly sized but not with tail room")
                return
            }
            let hadExtension = packet.hasExtension
            let form = packet.extensionForm
            if hadExtension, form == nil {
                // An opaque profile's block cannot take RFC 8285 elements, and refusing must not
                // touch the packet.
                let profile = packet.extensionProfile ?? 0
                let refused = thrownError { () throws(RTPPacketError) in
                    _ = try packet.reserveExtensionElement(id: 1, length: 1)
                }
                checker.check(refused == .extensionProfileNotRFC8285(profile: profile), "opaque profile: \(String(describing: refused))")
                checker.check(packet.length == input.count && Array(buffer[0..<input.count]) == input, "refusal changed the packet")
                tally.opaqueRefusals += 1
                return
            }
            let present = Set(snapshot.elements.map(\.id))
            let preferred: HeaderExtensionForm =
                Bool.random(using: &generator) ? .oneByte : .twoByte(appBits: UInt8.random(in: 0...15, using: &generator))
            // With a block the element must fit its form; without one, either form's range, so that a
            // one-byte preference sometimes has to give way to the two-byte form.
            let ranges = form ?? (Bool.random(using: &generator) ? .oneByte : .twoByte(appBits: 0))
            let id: UInt8
            let length: Int
            switch ranges {
            case .oneByte:
                guard let free = (1...14).map(UInt8.init).filter({ !present.contains($0) }).randomElement(using: &generator)
                else { return }
                id = free
                length = Int.random(in: 1...16, using: &generator)
            case .twoByte:
                var candidate = UInt8.random(in: 1...255, using: &generator)
                while present.contains(candidate) { candidate = UInt8.random(in: 1...255, using: &generator) }
                id = candidate
                length = Int.random(in: 0...(Bool.random(using: &generator) ? 16 : 255), using: &generator)
            }

            let slot: UnsafeMutableRawBufferPointer
            do throws(RTPPacketError) {
                slot = try packet.reserveExtensionElement(id: id, length: length, preferredForm: preferred)
            } catch {
                checker.check(false, "adding ID \(id), \(length) bytes threw \(error)")
                return
            }
            checker.check(slot.count == length, "slot of \(slot.count) bytes for \(length)")
            for index in slot.indices { slot[index] = UInt8.random(in: 0...255, using: &generator) }
            let value = Array(slot)

            guard let grown = try? RTPPacket(parsing: buffer, length: packet.length) else {
                checker.check(false, "adding ID \(id), \(length) bytes left a packet that does not parse")
                return
            }
            checker.check(
                grown.headerLength == packet.headerLength && grown.paddingLength == packet.paddingLength,
                "re-parse after adding disagrees")
            let expectedForm = form ?? (preferred.canCarry(id: id, length: length) ? preferred : .twoByte(appBits: 0))
            checker.check(grown.extensionForm == expectedForm, "form after adding ID \(id), \(length) bytes")
            checker.check(
                extensionSnapshot(of: grown, checker: checker).elements
                    == snapshot.elements + [Element(id: id, value: value)],
                "elements after adding ID \(id)")
            checker.check(grown.extensionElement(id: id).map { Array($0) } == value, "lookup of the added ID \(id)")
            checker.check(Array(buffer[grown.headerLength..<grown.length]) == tail, "payload after adding")
            checker.check(
                buffer[0] & ~0x10 == input[0] & ~0x10 && Array(buffer[1..<12]) == Array(input[1..<12]),
                "fixed header after adding")

            checker.check(packet.removeExtensionElement(id: id), "the added ID \(id) was not removed")
            checker.check(!packet.removeExtensionElement(id: id), "the added ID \(id) was removed twice")
            guard let shrunk = try? RTPPacket(parsing: buffer, length: packet.length) else {
                checker.check(false, "removing ID \(id) left a packet that does not parse")
                return
            }
            checker.check(
                extensionSnapshot(of: shrunk, checker: checker).elements == snapshot.elements,
                "elements after removing ID \(id)")
            checker.check(Array(buffer[shrunk.headerLength..<shrunk.length]) == tail, "payload after removing")
            let tight = snapshot.usedLength > 0 && snapshot.dataLength == (snapshot.usedLength + 3) & ~3
            if !hadExtension || tight {
                checker.check(Array(buffer[0..<packet.length]) == input, "add-then-remove of ID \(id), \(length) bytes")
                tally.exactRestores += 1
            } else {
                tally.equivalentRestores += 1
            }
        }
    }

    /// Resizes an element that occurs once, then drops the padding and shortens the payload; each
    /// step must leave a packet that parses.
    static func replaceAndTrim(
        _ input: [UInt8], _ headerLength: Int, _ snapshot: ExtensionSnapshot,
        checker: Checker, tally: inout RTPTally, using generator: inout SeededGenerator
    ) {
        var storage = input + [UInt8](repeating: 0xEE, count: 320)
        storage.withUnsafeMutableBytes { buffer in
            guard var packet = try? RTPPacket(parsing: buffer, length: input.count) else { return }
            let ids = snapshot.elements.map(\.id)
            if let form = packet.extensionForm,
                let target = ids.filter({ id in ids.count(where: { $0 == id }) == 1 }).randomElement(using: &generator),
                let old = snapshot.elements.first(where: { $0.id == target })
            {
                var length: Int
                repeat {
                    length =
                        form == .oneByte
                        ? Int.random(in: 1...16, using: &generator) : Int.random(in: 0...40, using: &generator)
                } while length == old.value.count
                do throws(RTPPacketError) {
                    let slot = try packet.reserveExtensionElement(id: target, length: length)
                    for index in slot.indices { slot[index] = UInt8(truncatingIfNeeded: index &* 37) }
                    let value = Array(slot)
                    if let reparsed = try? RTPPacket(parsing: buffer, length: packet.length) {
                        checker.check(
                            extensionSnapshot(of: reparsed, checker: checker).elements
                                == snapshot.elements.filter { $0.id != target } + [Element(id: target, value: value)],
                            "elements after resizing ID \(target) to \(length) bytes")
                        checker.check(
                            Array(buffer[reparsed.headerLength..<reparsed.length]) == Array(input[headerLength...]),
                            "payload after resizing")
                        tally.replacements += 1
                    } else {
                        checker.check(false, "resizing ID \(target) to \(length) bytes left a packet that does not parse")
                        return
                    }
                } catch {
                    checker.check(false, "resizing ID \(target) to \(length) bytes threw \(error)")
                    return
                }
            }
            let payload = Array(packet.payload)
            packet.removePadding()
            guard let unpadded = try? RTPPacket(parsing: buffer, length: packet.length) else {
                checker.check(false, "removing padding left a packet that does not parse")
                return
            }
            checker.check(!unpadded.hasPadding && unpadded.paddingLength == 0, "padding after removePadding")
            checker.check(Array(unpadded.payload) == payload, "payload after removePadding")
            let shorter = Int.random(in: 0...packet.payloadLength, using: &generator)
            do throws(RTPPacketError) {
                try packet.setPayloadLength(shorter)
            } catch {
                checker.check(false, "shortening the payload threw \(error)")
                return
            }
            let trimmed = try? RTPPacket(parsing: buffer, length: packet.length)
            checker.check(
                trimmed?.payloadLength == shorter && trimmed.map { Array($0.payload) } == Array(payload.prefix(shorter)),
                "payload after setPayloadLength(\(shorter))")
        }
    }

    /// Valid packets to mutate: the goldens of the RTP tests and packets built with the writers.
    static func rtpSeeds() -> [[UInt8]] {
        var seeds = [
            // Two CSRCs, a one-byte block, 3 bytes of payload, 4 of padding.
            "b2 e0 12 34 de ad be ef ca fe ba be 00 00 00 01 00 00 00 02 be de 00 02 10 ab 22 01 02 03 00 00 aa bb cc 00 00 00 04",
            // Two-byte block: ID 20 empty, a padding byte, ID 7 with 2 bytes.
            "90 60 00 01 00 00 00 02 00 00 00 03 10 00 00 02 14 00 00 07 02 aa bb 00 99",
            // A profile other than RFC 8285's: the block is opaque.
            "90 60 00 01 00 00 00 01 00 00 00 01 12 34 00 01 ff ff ff ff 55",
            // A one-byte block with a spare word of padding, and an empty one.
            "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 02 10 ab 00 00 00 00 00 00 99",
            "90 60 00 01 00 00 00 02 00 00 00 03 be de 00 00 99 98",
            // No block, one CSRC, padding.
            "a1 60 00 01 00 00 00 02 00 00 00 03 00 00 00 09 77 00 00 03",
            // Bare header and a bare header with a payload byte.
            "80 60 00 01 00 00 00 02 00 00 00 03",
            "80 60 00 01 00 00 00 02 00 00 00 03 99",
        ].map(hexBytes)
        let payload = (0..<160).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        // What a browser's video packet carries: mid, abs-send-time, transport-cc, plus audio level.
        seeds.append(
            built(payload: Array(payload.prefix(40))) { packet throws(RTPPacketError) in
                try packet.setMid("0", id: 1)
                try packet.setAbsoluteSendTime(AbsoluteSendTime(value: 0x12_3456), id: 2)
                try packet.setTransportSequenceNumber(0xBEEF, id: 3)
                try packet.setAudioLevel(AudioLevelIndication(voiceActivity: true, level: 40), id: 4)
            })
        // A rid on ID 15 forces the two-byte form; then a long mid and an empty element.
        seeds.append(
            built(payload: payload) { packet throws(RTPPacketError) in
                try packet.setRTPStreamID("hi", id: 15)
                try packet.setMid("a-mid-longer-than-sixteen-bytes", id: 1)
                try packet.setTransportSequenceNumber(7, id: 200)
                try packet.reserveExtensionElement(id: 9, length: 0)
            })
        seeds.append(
            built(payload: Array(payload.prefix(8))) { packet throws(RTPPacketError) in
                try packet.setRepairedRTPStreamID("q", id: 14)
            })
        return seeds
    }

    static func built(
        payload: [UInt8], _ body: (inout RTPPacket) throws(RTPPacketError) -> Void
    ) -> [UInt8] {
        var storage = [UInt8](repeating: 0, count: 12 + payload.count + 128)
        let length = storage.withUnsafeMutableBytes { buffer in
            payload.withUnsafeBytes { payload in
                var packet = try! RTPPacket(
                    writingInto: buffer, payloadType: 96, sequenceNumber: 0x1234, timestamp: 90_000,
                    ssrc: 0xCAFE_BABE, marker: true, payload: payload)
                try! body(&packet)
                return packet.length
            }
        }
        return Array(storage.prefix(length))
    }

    // MARK: VP8

    @Test func vp8DescriptorsFromRandomAndMutatedBytes() {
        let seeds: [[UInt8]] = [
            [0x10],
            [0x6B, 0x00],
            [0x90, 0x80, 0x2A, 0x01, 0xFF],
            [0x90, 0xF0, 0x92, 0x34, 0x07, 0xA5, 0x9C, 0x01],
            [0x90, 0xE0, 0x92, 0x34, 0x07, 0xAA],
            [0x80, 0x10, 0xE5],
            [0x80, 0x20, 0x5F],
            [0x90, 0x40, 0x07, 0x9D, 0x01, 0x2A],
            [0x80, 0x00, 0x55],
            [0x90, 0xF0, 0x80, 0x01, 0x07, 0x20, 0x50] + (0..<100).map { UInt8(truncatingIfNeeded: $0 &* 13) },
        ]
        var generator = SeededGenerator(seed: 0x5650_3844_4553_4352)
        let checker = Checker()
        var parsed = 0
        var mutatedParsed = 0
        var errors: Set<String> = []
        var rewrites = 0
        for index in 0..<3_000 {
            let input =
                index < 1_000
                ? ByteMutations.randomBytes(using: &generator)
                : ByteMutations.mutated(seeds[index % seeds.count], using: &generator)
            checker.input = input
            if let outcome = Self.exerciseVP8(input, checker: checker, using: &generator) {
                parsed += 1
                if index >= 1_000 { mutatedParsed += 1 }
                rewrites += outcome
            } else {
                errors.insert(Self.caseName(Self.vp8Error(input)))
            }
        }
        #expect(parsed >= 1_500, "parsed \(parsed) of 3000")
        #expect(mutatedParsed >= 1_000, "mutated inputs parsed: \(mutatedParsed) of 2000")
        #expect(rewrites >= 500, "in-place rewrites: \(rewrites)")
        #expect(errors == ["emptyPayload", "truncated"], "error cases reached: \(errors.sorted())")
        #expect(checker.failures == 0)
    }

    /// Parses `input`, checks the result against an independent reading of RFC 7741 section 4.2, then
    /// against its own prefixes and in-place rewrites. Returns the number of rewrites done, or nil
    /// when the input does not parse (which the oracle must agree with).
    static func exerciseVP8(_ input: [UInt8], checker: Checker, using generator: inout SeededGenerator) -> Int? {
        let expected = expectedVP8Length(input)
        let result = parseVP8(input)
        guard case .success(let descriptor) = result else {
            if case .failure(let error) = result {
                switch error {
                case .emptyPayload: checker.check(input.isEmpty, "emptyPayload for \(input.count) bytes")
                case .truncated(_, let needed, let available):
                    checker.check(available == input.count && needed > available, "\(error)")
                    checker.check(expected.map { $0 > input.count } ?? false, "truncated, but the oracle needs \(String(describing: expected))")
                default: checker.check(false, "parsing threw \(error)")
                }
            }
            return nil
        }
        checker.check(descriptor.length == expected, "length \(descriptor.length), oracle \(String(describing: expected))")
        checker.check((1...6).contains(descriptor.length) && descriptor.length <= input.count, "length in bounds")
        checker.check(
            descriptor.firstPayloadHeaderByte == (descriptor.length < input.count ? input[descriptor.length] : nil),
            "payload header byte")
        let first = input[0]
        checker.check(
            descriptor.hasExtendedControlBits == (first & 0x80 != 0)
                && descriptor.isNonReferenceFrame == (first & 0x20 != 0)
                && descriptor.isStartOfPartition == (first & 0x10 != 0) && descriptor.partitionIndex == first & 0x07,
            "required octet")
        checker.check(
            descriptor.isStartOfFrame == (descriptor.isStartOfPartition && descriptor.partitionIndex == 0),
            "start of frame")
        checker.check(
            descriptor.isKeyFrame
                == (descriptor.isStartOfFrame && descriptor.firstPayloadHeaderByte.map { $0 & 1 == 0 } == true),
            "key frame")
        // Optional octets, read independently.
        var pictureID: UInt16?
        var width: VP8PayloadDescriptor.PictureIDWidth?
        var tl0: UInt8?
        var layer: UInt8?
        var keyIndex: UInt8?
        var sync = false
        // Reads past the end give 0: they only happen when the length already disagrees.
        func byte(_ offset: Int) -> UInt8 { offset < input.count ? input[offset] : 0 }
        if first & 0x80 != 0 {
            let extended = byte(1)
            var offset = 2
            if extended & 0x80 != 0 {
                if byte(2) & 0x80 != 0 {
                    pictureID = UInt16(byte(2) & 0x7F) << 8 | UInt16(byte(3))
                    width = .fifteenBits
                    offset += 2
                } else {
                    pictureID = UInt16(byte(2))
                    width = .sevenBits
                    offset += 1
                }
            }
            if extended & 0x40 != 0 {
                tl0 = byte(offset)
                offset += 1
            }
            if extended & 0x30 != 0 {
                if extended & 0x20 != 0 {
                    layer = byte(offset) >> 6
                    sync = byte(offset) & 0x20 != 0
                }
                if extended & 0x10 != 0 { keyIndex = byte(offset) & 0x1F }
            }
        }
        checker.check(
            descriptor.pictureID == pictureID && descriptor.pictureIDWidth == width
                && descriptor.tl0PictureIndex == tl0 && descriptor.temporalLayerID == layer
                && descriptor.isLayerSync == sync && descriptor.keyIndex == keyIndex,
            "optional octets")
        if let width {
            checker.check(width.modulus == (width == .sevenBits ? 128 : 32_768), "modulus")
        }

        // The descriptor alone parses to the same fields; one byte less does not parse.
        var alone = descriptor
        alone.firstPayloadHeaderByte = nil
        checker.check(parseVP8(Array(input.prefix(descriptor.length))) == .success(alone), "descriptor alone")
        if descriptor.length > 1 {
            guard case .failure(.truncated) = parseVP8(Array(input.prefix(descriptor.length - 1))) else {
                checker.check(false, "a descriptor one byte short parsed")
                return 0
            }
        }

        // Rewrites keep the length and touch only their field; absent fields are refused.
        var rewrites = 0
        var bytes = input
        bytes.withUnsafeMutableBytes { buffer in
            var rewritten = descriptor
            let newPictureID = UInt16.random(in: 0...UInt16.max, using: &generator)
            let pictureIDError = thrownError { () throws(VP8DescriptorError) in
                try rewritten.rewrite(pictureID: newPictureID, in: buffer)
            }
            if let width {
                checker.check(pictureIDError == nil, "rewriting the PictureID threw \(String(describing: pictureIDError))")
                checker.check(rewritten.pictureID == newPictureID % width.modulus, "rewritten PictureID")
                rewrites += 1
            } else {
                checker.check(pictureIDError == .pictureIDAbsent, "PictureID rewrite without I")
            }
            let newTL0 = UInt8.random(in: 0...255, using: &generator)
            let tl0Error = thrownError { () throws(VP8DescriptorError) in
                try rewritten.rewrite(tl0PictureIndex: newTL0, in: buffer)
            }
            if tl0 != nil {
                checker.check(tl0Error == nil, "rewriting TL0PICIDX threw \(String(describing: tl0Error))")
                checker.check(rewritten.tl0PictureIndex == newTL0, "rewritten TL0PICIDX")
                rewrites += 1
            } else {
                checker.check(tl0Error == .tl0PictureIndexAbsent, "TL0PICIDX rewrite without L")
            }
            let reparsed = try? VP8PayloadDescriptor(parsing: UnsafeRawBufferPointer(buffer))
            checker.check(reparsed == rewritten, "re-parse after rewriting")
        }
        checker.check(bytes[0] == input[0] && bytes[descriptor.length...] == input[descriptor.length...], "rewrite spilled")
        return rewrites
    }

    static func parseVP8(_ bytes: [UInt8]) -> Result<VP8PayloadDescriptor, VP8DescriptorError> {
        bytes.withUnsafeBytes { buffer in
            Result { () throws(VP8DescriptorError) in try VP8PayloadDescriptor(parsing: buffer) }
        }
    }

    static func vp8Error(_ bytes: [UInt8]) -> VP8DescriptorError? {
        if case .failure(let error) = parseVP8(bytes) { return error }
        return nil
    }

    /// The descriptor length RFC 7741 section 4.2 gives `bytes`; past the end when they are truncated,
    /// nil when empty.
    static func expectedVP8Length(_ bytes: [UInt8]) -> Int? {
        guard let first = bytes.first else { return nil }
        guard first & 0x80 != 0 else { return 1 }
        guard bytes.count >= 2 else { return 2 }
        let extended = bytes[1]
        var length = 2
        if extended & 0x80 != 0 { length += bytes.count > 2 && bytes[2] & 0x80 != 0 ? 2 : 1 }
        if extended & 0x40 != 0 { length += 1 }
        if extended & 0x30 != 0 { length += 1 }
        return length
    }

    // MARK: Opus

    @Test func opusTableOfContentsFromRandomAndMutatedBytes() {
        let seeds: [[UInt8]] = [
            [0x78],
            [0x78, 0x0B, 0x41, 0x22, 0x90],
            [0x79, 0x01, 0x02],
            [0x7A, 0x05, 0x01, 0x02, 0x03],
            [0x7B, 0xC3, 0x00, 0x11, 0x22],
            [0x83, 48, 0x01],
            [0x1B, 2, 0x10, 0x20],
            [0x4B, 0x06, 0x01],
            [0xFC] + (0..<120).map { UInt8(truncatingIfNeeded: $0 &* 29) },
        ]
        var generator = SeededGenerator(seed: 0x4F50_5553_544F_4321)
        let checker = Checker()
        var parsed = 0
        var errors: Set<String> = []
        for index in 0..<2_000 {
            let input =
                index < 800
                ? ByteMutations.randomBytes(using: &generator)
                : ByteMutations.mutated(seeds[index % seeds.count], using: &generator)
            checker.input = input
            let result = input.withUnsafeBytes { buffer in
                Result { () throws(OpusTableOfContentsError) in try OpusTableOfContents(parsing: buffer) }
            }
            checker.check(result == Self.expectedOpus(input), "disagrees with the oracle: \(result)")
            switch result {
            case .success(let toc):
                parsed += 1
                checker.check(toc.packetSamples <= OpusTableOfContents.maximumPacketSamples, "over 120 ms")
                checker.check(
                    toc.frameDurationMicroseconds == toc.samplesPerFrame * 1_000 / 48
                        && toc.frameDuration == .microseconds(toc.frameDurationMicroseconds),
                    "frame duration")
                checker.check(
                    toc.packetDurationMicroseconds == toc.packetSamples * 1_000 / 48
                        && toc.packetDuration == .microseconds(toc.packetDurationMicroseconds),
                    "packet duration")
                checker.check(toc.isDiscontinuousTransmission == (input.count <= 2), "DTX")
                checker.check(
                    toc.bandwidth.effectiveSampleRate > 0 && toc.bandwidth.audioBandwidthHertz * 2 <= toc.bandwidth.effectiveSampleRate,
                    "bandwidth")
            case .failure(let error):
                errors.insert(Self.caseName(error))
            }
        }
        #expect(parsed >= 1_200, "parsed \(parsed) of 2000")
        #expect(errors.count == 4, "error cases reached: \(errors.sorted())")
        #expect(checker.failures == 0)
    }

    /// RFC 6716 sections 3.1 and 3.2.5, written as tables rather than arithmetic.
    static func expectedOpus(_ bytes: [UInt8]) -> Result<OpusTableOfContents, OpusTableOfContentsError> {
        typealias Mode = OpusTableOfContents.Mode
        typealias Bandwidth = OpusTableOfContents.Bandwidth
        guard let toc = bytes.first else { return .failure(.emptyPayload) }
        let configuration = Int(toc >> 3)
        let modes: [Mode] = [
            .silk, .silk, .silk, .silk, .silk, .silk, .silk, .silk, .silk, .silk, .silk, .silk,
            .hybrid, .hybrid, .hybrid, .hybrid,
            .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt, .celt,
        ]
        let bandwidths: [Bandwidth] = [
            .narrowband, .narrowband, .narrowband, .narrowband, .mediumband, .mediumband, .mediumband, .mediumband,
            .wideband, .wideband, .wideband, .wideband, .superWideband, .superWideband, .fullband, .fullband,
            .narrowband, .narrowband, .narrowband, .narrowband, .wideband, .wideband, .wideband, .wideband,
            .superWideband, .superWideband, .superWideband, .superWideband, .fullband, .fullband, .fullband, .fullband,
        ]
        let frameSamples: [Int] = [
            480, 960, 1_920, 2_880, 480, 960, 1_920, 2_880, 480, 960, 1_920, 2_880,
            480, 960, 480, 960,
            120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960, 120, 240, 480, 960,
        ]
        let code = toc & 0x03
        var frames = code == 0 ? 1 : 2
        if code == 3 {
            guard bytes.count >= 2 else { return .failure(.frameCountByteMissing) }
            frames = Int(bytes[1] & 0x3F)
            guard frames > 0 else { return .failure(.frameCountZero) }
            guard frames * frameSamples[configuration] <= 5_760 else {
                return .failure(.durationExceeds120Milliseconds(frameCount: frames, samplesPerFrame: frameSamples[configuration]))
            }
        }
        var expected = try! [UInt8(0x00)].withUnsafeBytes { try OpusTableOfContents(parsing: $0) }
        expected.configuration = UInt8(configuration)
        expected.mode = modes[configuration]
        expected.bandwidth = bandwidths[configuration]
        expected.samplesPerFrame = frameSamples[configuration]
        expected.isStereo = toc & 0x04 != 0
        expected.frameCountCode = code
        expected.frameCount = frames
        expected.payloadLength = bytes.count
        return .success(expected)
    }

    // MARK: Inputs

    // MARK: Helpers

    /// Collects broken invariants, recording the first ten with the input that broke them.
    final class Checker {
        var input: [UInt8] = []
        private(set) var failures = 0

        func check(
            _ condition: Bool, _ what: @autoclosure () -> String, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            guard !condition else { return }
            failures += 1
            if failures <= 10 {
                Issue.record("\(what()); input (\(input.count) bytes): \(RandomizedParsingTests.hex(input))", sourceLocation: sourceLocation)
            }
        }
    }

    static func caseName(_ error: (some Error)?) -> String {
        guard let error else { return "none" }
        return String(String(describing: error).prefix { $0 != "(" })
    }

    static func thrownError<E: Error>(_ body: () throws(E) -> Void) -> E? {
        do throws(E) {
            try body()
            return nil
        } catch {
            return error
        }
    }

    static func be16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
    }

    static func be24(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 16 | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2])
    }

    static func be32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        UInt32(be16(bytes, offset)) << 16 | UInt32(be16(bytes, offset + 2))
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        var text = ""
        for (index, byte) in bytes.enumerated() {
            if index > 0 { text.append(" ") }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }
}
