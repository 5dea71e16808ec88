import COpenSSL

/// OpenSSL's thread-local error queue, drained into text for a `DTLSError`.
enum OpenSSLErrors {
    static func drain() -> String {
        var messages: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return messages.isEmpty ? "no detail" : messages.joined(separator: "; ")
    }

    static func failure(_ operation: String) -> DTLSError {
        .library(operation: operation, detail: drain())
    }
}
