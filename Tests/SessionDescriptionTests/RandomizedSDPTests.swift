import MediaControl
import Testing
import TestSupport

@testable import SessionDescription

/// Randomized robustness test for the SDP any connected client can send: real offers from Chromium
/// and aiortc, edited line by line and byte by byte from a fixed seed, go through the parser and the
/// publisher negotiation the signaling uses. Each is refused with an error whose line number is a
/// line of the text, or answered with a description that parses again and accepts only what the
/// offer had.
@Suite struct RandomizedSDPTests {
    /// Offers the router answers: Chromium's (one encoding and simulcast) and aiortc's.
    private static let offers = [SDPFixtures.chromeOffer, SDPFixtures.aiortcOffer, SDPFixtures.chromeSimulcastOffer]

    /// `text` after one to three edits: a line dropped, duplicated, moved, cut short or given another
    /// line's value, or the bytes mutated.
    private static func edited(_ text: String, using generator: inout SeededGenerator) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            guard lines.count > 1 else { break }
            let index = Int.random(in: 0..<lines.count, using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0: lines.remove(at: index)
            case 1: lines.insert(lines[index], at: Int.random(in: 0...lines.count, using: &generator))
            case 2: lines.swapAt(index, Int.random(in: 0..<lines.count, using: &generator))
            case 3: lines[index] = String(lines[index].prefix(Int.random(in: 0...lines[index].count, using: &generator)))
            case 4:
                let donor = lines.randomElement(using: &generator)!
                if let equals = lines[index].firstIndex(of: "="), let donorEquals = donor.firstIndex(of: "=") {
                    lines[index] = String(lines[index][...equals]) + donor[donor.index(after: donorEquals)...]
                }
            default:
                lines[index] = String(decoding: ByteMutations.mutated(Array(lines[index].utf8), using: &generator), as: UTF8.self)
            }
        }
        return lines.joined(separator: "\n")
    }

    @Test func editedOffersAreRefusedByLineOrAnsweredConsistently() {
        var generator = SeededGenerator(seed: 0x5344_5052_414E_4431)
        var answered = 0
        var refusedWithLine = 0
        for offer in Self.offers {
            let parsed = try? SessionDescription(parsing: offer)
            #expect(parsed.flatMap { try? PublisherNegotiation.answer(offer: $0, local: routerTransport, sessionID: 1) } != nil,
                "every seed is answered before it is edited")
        }
        for _ in 0..<800 {
            let text = Self.edited(Self.offers.randomElement(using: &generator)!, using: &generator)
            let lineCount = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
            do throws(SDPError) {
                let offer = try SessionDescription(parsing: text)
                let result = try PublisherNegotiation.answer(offer: offer, local: routerTransport, sessionID: 1)
                answered += 1
                #expect(result.answer.media.count == offer.media.count, "one answer section per offered section")
                let offeredMids = Set(offer.media.compactMap(\.mid))
                for track in result.tracks {
                    #expect(offeredMids.contains(track.mid), "track \(track.mid) is not in the offer")
                    #expect(track.payloadType < 128, "payload type \(track.payloadType)")
                    #expect(track.codec.kind.rawValue == track.kind, "a \(track.kind) track in \(track.codec)")
                }
                #expect((try? SessionDescription(parsing: result.answer.description)) != nil, "the answer parses again")
            } catch {
                if let line = error.line {
                    refusedWithLine += 1
                    #expect((1...lineCount).contains(line), "line \(line) of \(lineCount): \(error)")
                }
                #expect(!error.reason.isEmpty)
            }
        }
        #expect(answered >= 300, "answered \(answered) of 800")
        #expect(refusedWithLine >= 200, "refusals naming a line: \(refusedWithLine), answered \(answered)")
    }
}
