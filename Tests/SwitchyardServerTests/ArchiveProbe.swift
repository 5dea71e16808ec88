import Foundation

/// What FFmpeg's ffprobe reads from an archive's file: its streams' codecs, the picture size, the
/// duration, and the video packets' key-frame flags.
struct ArchiveProbe {
    var codecs: [String]
    var width: Int?
    var height: Int?
    /// Seconds, from the container.
    var duration: Double
    var videoPackets: Int
    var firstVideoPacketIsKey: Bool

    private struct Probe: Decodable {
        struct Stream: Decodable {
            var codec_name: String
            var width: Int?
            var height: Int?
        }
        struct Format: Decodable {
            var duration: String?
        }
        var streams: [Stream]
        var format: Format
    }

    init(path: String) throws {
        let json = try ChildProcess.run(
            "/usr/bin/ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", path])
        let probe = try JSONDecoder().decode(Probe.self, from: Data(json.utf8))
        codecs = probe.streams.map(\.codec_name)
        width = probe.streams.compactMap(\.width).first
        height = probe.streams.compactMap(\.height).first
        duration = Double(probe.format.duration ?? "") ?? 0
        let flags = try ChildProcess.run(
            "/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", path]
        ).split(separator: "\n").filter { !$0.isEmpty }
        videoPackets = flags.count
        firstVideoPacketIsKey = flags.first?.hasPrefix("K") ?? false
    }

    /// What ffmpeg reports while it decodes every frame of the file; empty when all decode.
    static func decodingErrors(path: String) throws -> String {
        try ChildProcess.run("/usr/bin/ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "null", "-"])
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
