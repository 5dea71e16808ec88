import Foundation

/// The seed corpus of each libFuzzer target (`Fuzz/seeds/<target>/`), which `make test` replays through
/// the target's invariants, so a harness cannot drift from the code between fuzzing campaigns.
public enum FuzzSeeds {
    private static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz").appendingPathComponent("seeds")

    /// The names of `target`'s seed files, in order.
    public static func names(of target: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent(target).path).sorted()
    }

    /// Hands every seed of `target`, in name order, to `check`, on a thread of its own (a check may
    /// block its thread on the media plane), saying on standard error which seed goes next, so the
    /// crash of a broken invariant names its seed. The state a check keeps carries over, as in a campaign.
    public static func replay(_ target: String, through check: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) async throws {
        let names = try names(of: target)
        let files = directory.appendingPathComponent(target)
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            Thread {
                do {
                    for name in names {
                        let bytes = try Data(contentsOf: files.appendingPathComponent(name))
                        FileHandle.standardError.write(Data("fuzz seed \(target)/\(name)\n".utf8))
                        bytes.withUnsafeBytes(check)
                    }
                    done.resume()
                } catch {
                    done.resume(throwing: error)
                }
            }.start()
        }
    }

    /// What a replay's child process said about its failure: the seed it was on, and the fatal error
    /// (the broken invariant, or the trap), without the backtrace.
    public static func failureReport(standardError: [UInt8]) -> String {
        let lines = String(decoding: standardError, as: UTF8.self).split(separator: "\n")
        let seed = lines.last { $0.hasPrefix("fuzz seed ") } ?? "before the first seed"
        let fatal = lines.first { $0.contains("Fatal error") || $0.contains("fuzz invariant") } ?? "no fatal error printed"
        return "\(seed): \(fatal)"
    }
}
