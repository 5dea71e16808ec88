import Foundation
import MediaTestSupport

/// A real H.264 stream for tests: encoded by FFmpeg's libx264 (constrained baseline, an IDR with
/// its parameter sets every second, an access unit delimiter before each picture), then sent as a
/// WebRTC publisher sends it (RFC 6184 mode 1: single NAL units, FU-A for the large ones).
struct H264TestStream {
    /// Each access unit's NAL units, without start codes or delimiters.
    let accessUnits: [[[UInt8]]]
    static let payloadType: UInt8 = 102
    static let largestPayload = 1000

    /// Encodes `seconds` of FFmpeg's test picture at `width` × `height`, 30 frames a second.
    init(seconds: Int, width: Int, height: Int) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("switchyard-\(UUID().uuidString).h264")
            .path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try ChildProcess.run(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=30", "-t",
                String(seconds), "-c:v", "libx264",
                "-profile:v", "baseline", "-pix_fmt", "yuv420p", "-g", "30", "-bf", "0", "-x264-params",
                "aud=1:repeat-headers=1", "-f", "h264", "-y", path,
            ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var units: [[[UInt8]]] = []
        for nal in Self.nalUnits(bytes) {
            // An access unit delimiter (type 9) starts the next picture.
            if nal.first.map({ $0 & 0x1F == 9 }) ?? false {
                units.append([])
            } else if !units.isEmpty {
                units[units.count - 1].append(nal)
            }
        }
        accessUnits = units.filter { !$0.isEmpty }
    }

    /// The NAL units of an Annex B byte stream.
    private static func nalUnits(_ bytes: [UInt8]) -> [[UInt8]] {
        var starts: [(code: Int, nal: Int)] = []
        var index = 0
        while index + 3 <= bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                starts.append((index > 0 && bytes[index - 1] == 0 ? index - 1 : index, index + 3))
                index += 3
            } else {
                index += 1
            }
        }
        return starts.enumerated().map { position, start in
            Array(bytes[start.nal..<(position + 1 < starts.count ? starts[position + 1].code : bytes.count)])
        }
    }

    /// The RTP payloads of access unit `index`: a NAL unit that fits in one packet alone, a larger
    /// one in FU-A fragments.
    func payloads(of index: Int) -> [[UInt8]] {
        accessUnits[index].flatMap { nal -> [[UInt8]] in
            guard nal.count > Self.largestPayload else { return [nal] }
            let header = nal[0]
            let body = Array(nal.dropFirst())
            let pieces = stride(from: 0, to: body.count, by: Self.largestPayload - 2).map {
                Array(body[$0..<min(body.count, $0 + Self.largestPayload - 2)])
            }
            return pieces.enumerated().map { position, piece in
                let start: UInt8 = position == 0 ? 0x80 : 0
                let end: UInt8 = position == pieces.count - 1 ? 0x40 : 0
                return [header & 0xE0 | 28, start | end | header & 0x1F] + piece
            }
        }
    }

    /// Sends every access unit in real time from `peer` on `ssrc`, 30 a second.
    func send(from peer: TestPeer, ssrc: UInt32) async throws {
        var sequence: UInt16 = 1
        let start = ContinuousClock.now
        for index in accessUnits.indices {
            let payloads = payloads(of: index)
            for (position, payload) in payloads.enumerated() {
                try peer.sendRTP(
                    payloadType: Self.payloadType, sequenceNumber: sequence, timestamp: UInt32(index * 3000),
                    ssrc: ssrc, payload: payload,
                    marker: position == payloads.count - 1)
                sequence &+= 1
            }
            try await Task.sleep(until: start + .milliseconds(33 * (index + 1)), clock: .continuous)
        }
    }
}
