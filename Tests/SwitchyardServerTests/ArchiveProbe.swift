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
            "/usr/bin/ffprobe",
            ["-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "csv=p=0", path]
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

extension ArchiveProbe {
    /// Where the audio lags the video (positive) or leads it, in seconds: the median over the file's
    /// beeps of the beep's onset less the nearest flash's, as FFmpeg decodes them (the media of
    /// `MediaSettings.syncMarks`). Nil when either kind has no onset.
    static func audioLagBehindVideo(path: String) throws -> Double? {
        let video = try ChildProcess.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-f", "lavfi", "-i", "movie=\(path),signalstats", "-show_entries",
                "frame=pts_time:frame_tags=lavfi.signalstats.YAVG",
                "-of", "csv=p=0",
            ])
        let audio = try ChildProcess.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-f", "lavfi", "-i", "amovie=\(path),asetnsamples=240,astats=metadata=1:reset=1",
                "-show_entries",
                "frame=pts_time:frame_tags=lavfi.astats.Overall.RMS_level", "-of", "csv=p=0",
            ])
        let flashes = onsets(video, above: 180)
        let beeps = onsets(audio, above: -30)
        let lags = beeps.compactMap { beep in flashes.min { abs($0 - beep) < abs($1 - beep) }.map { beep - $0 } }
            .sorted()
        return lags.isEmpty ? nil : lags[lags.count / 2]
    }

    /// The times at which a `time,value` series rises above `threshold`.
    private static func onsets(_ csv: String, above threshold: Double) -> [Double] {
        var onsets: [Double] = []
        var wasAbove = false
        for line in csv.split(separator: "\n") {
            let fields = line.split(separator: ",")
            guard fields.count >= 2, let time = Double(fields[0]) else { continue }
            let value = Double(fields[1]) ?? -.infinity
            if value > threshold, !wasAbove { onsets.append(time) }
            wasAbove = value > threshold
        }
        return onsets
    }
}

extension ArchiveProbe {
    /// The luma plane of the frame shown at `seconds`, as ffmpeg decodes it.
    static func luma(path: String, at seconds: Double, width: Int, height: Int) throws -> [UInt8] {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "switchyard-frame-\(UUID().uuidString).gray"
        ).path
        defer { try? FileManager.default.removeItem(atPath: output) }
        try ChildProcess.run(
            "/usr/bin/ffmpeg",
            [
                "-nostdin", "-v", "error", "-ss", String(seconds), "-i", path, "-frames:v", "1", "-f", "rawvideo",
                "-pix_fmt", "gray", "-y", output,
            ])
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        guard bytes.count == width * height else {
            throw ChildProcess.Failed(command: "ffmpeg frame", status: 0, output: "\(bytes.count) bytes")
        }
        return bytes
    }

    /// The mean luma of rows `rows` and columns `columns` of a frame `width` wide.
    static func meanLuma(_ frame: [UInt8], width: Int, rows: Range<Int>, columns: Range<Int>) -> Double {
        var sum = 0
        for row in rows { for column in columns { sum += Int(frame[row * width + column]) } }
        return Double(sum) / Double(rows.count * columns.count)
    }

    /// The mean volume of the file's audio in dB, as ffmpeg's volumedetect measures it.
    static func meanVolume(path: String) throws -> Double? {
        let output = try ChildProcess.run(
            "/usr/bin/ffmpeg", ["-nostdin", "-v", "info", "-i", path, "-af", "volumedetect", "-f", "null", "-"])
        guard let line = output.split(separator: "\n").first(where: { $0.contains("mean_volume:") }),
            let value = line.split(separator: " ").dropLast().last
        else { return nil }
        return Double(value)
    }
}
