import CAVFormat
import Foundation

/// Why an archive's file could not be written.
enum ArchiveWriteError: Error, Equatable, CustomStringConvertible {
    /// A libavformat call failed.
    case muxer(path: String, call: String, code: Int32)
    /// A codec of a composed archive failed.
    case codec(String)

    var description: String {
        switch self {
        case .muxer(let path, let call, let code):
            var text = [CChar](repeating: 0, count: 256)
            av_strerror(code, &text, text.count)
            return "\(call) failed for \(path): \(String(cString: text)) (\(code))"
        case .codec(let problem):
            return problem
        }
    }
}
