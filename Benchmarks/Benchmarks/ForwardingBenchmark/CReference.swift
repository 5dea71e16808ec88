import Foundation
import SRTP

/// The minimal C forwarder (`Benchmarks/CReferenceForwarder`), run as a child process under the same
/// load right after the media plane, so the two figures come from the same sitting.
enum CReference {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the forwarder at `path` for one profile and returns its forwarded packets per CPU-second.
    static func run(path: String, profile: SRTPProfile, timing: RunTiming) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = ["--only", profile.rawValue, "--window", String(Double(timing.windowNanoseconds) / 1e9)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let marker = "forwarded_pps_per_cpu_second="
        guard process.terminationStatus == 0,
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("c_reference_forward \(profile.rawValue) ") }),
            let range = line.range(of: marker), let value = Double(line[range.upperBound...])
        else {
            throw Failure(description: "\(path) exited with \(process.terminationStatus) and printed: \(text)")
        }
        return value
    }
}
