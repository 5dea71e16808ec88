import Foundation

/// Checks made on the whole text of a message or body before anything is decoded from it.
enum JSONText {
    /// Whether the bytes are one JSON text. JSONDecoder checks a string's escapes and UTF-8 only when
    /// it decodes that string, so text broken inside a field would otherwise be refused as if that
    /// field's value were wrong, or not at all when the field is unknown.
    static func isValid(_ data: Data) -> Bool {
        (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
    }

    /// What the structure of a valid JSON text says, beyond what a decoder reports.
    struct Inspection {
        /// The first key that appears twice in one object. Parsers disagree on which of the two
        /// counts (JSONDecoder takes the first, JSONSerialization the last), so a message with one is
        /// refused rather than read one way here and another way by whatever sits in front.
        var duplicateKey: String?
        /// The keys of the outermost object whose values are written as integers: digits, no fraction
        /// or exponent. JSONDecoder reads 444444444444444444.6 as the integer 444444444444444444.
        var integerKeys: Set<String> = []
    }

    static func inspect(_ data: Data) -> Inspection {
        data.withUnsafeBytes { bytes -> Inspection in
            var inspection = Inspection()
            // One entry per open container: the keys seen so far in an object, nil for an array.
            var containers: [Set<String>?] = []
            var expectingKey = false
            var outermostKey: String?
            var index = 0
            while index < bytes.count {
                switch bytes[index] {
                case UInt8(ascii: "{"):
                    containers.append([])
                    expectingKey = true
                case UInt8(ascii: "["):
                    containers.append(nil)
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    // JSONSerialization also takes UTF-16 and UTF-32, whose bytes need not balance.
                    if !containers.isEmpty { containers.removeLast() }
                    expectingKey = false
                case UInt8(ascii: ","):
                    expectingKey = containers.last.map { $0 != nil } ?? false
                case UInt8(ascii: ":") where outermostKey != nil:
                    let (isInteger, end) = readValueToken(bytes, after: index)
                    if isInteger, let key = outermostKey { inspection.integerKeys.insert(key) }
                    outermostKey = nil
                    index = end
                    continue
                case UInt8(ascii: "\"") where expectingKey:
                    let (key, end) = readString(bytes, openingQuoteAt: index)
                    index = end
                    expectingKey = false
                    if containers[containers.count - 1]?.insert(key).inserted == false {
                        inspection.duplicateKey = inspection.duplicateKey ?? key
                    }
                    if containers.count == 1 { outermostKey = key }
                    continue
                case UInt8(ascii: "\""):
                    index = endOfString(bytes, openingQuoteAt: index)
                    continue
                default:
                    break
                }
                index += 1
            }
            return inspection
        }
    }

    /// Whether the value after the colon at `colon` is an integer literal (`-?(0|[1-9][0-9]*)`), and
    /// where scanning goes on: after the number, or at the value's first character otherwise.
    private static func readValueToken(_ bytes: UnsafeRawBufferPointer, after colon: Int) -> (Bool, Int) {
        var index = colon + 1
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        let start = index
        while index < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")
            || bytes[index] == UInt8(ascii: ".") || bytes[index] | 0x20 == UInt8(ascii: "e")
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index])
        {
            index += 1
        }
        let token = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        let digits = token.first == UInt8(ascii: "-") ? UnsafeRawBufferPointer(rebasing: token.dropFirst()) : token
        let isInteger = !digits.isEmpty && digits.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            && (digits.count == 1 || digits.first != UInt8(ascii: "0"))
        return (isInteger, index)
    }

    /// The index after the closing quote of the string that starts at `start`.
    private static func endOfString(_ bytes: UnsafeRawBufferPointer, openingQuoteAt start: Int) -> Int {
        var index = start + 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
        }
        return index + 1
    }

    /// The string that starts at `start` with its escapes resolved, and the index after its closing quote.
    private static func readString(_ bytes: UnsafeRawBufferPointer, openingQuoteAt start: Int) -> (String, Int) {
        var scalars = String.UnicodeScalarView()
        var raw: [UInt8] = []
        var index = start + 1
        func flushRaw() {
            scalars.append(contentsOf: String(decoding: raw, as: UTF8.self).unicodeScalars)
            raw.removeAll(keepingCapacity: true)
        }
        func hexQuad(at offset: Int) -> UInt32 {
            guard offset + 4 <= bytes.count else { return 0xFFFD }
            return UInt32(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + 4]), as: UTF8.self), radix: 16) ?? 0xFFFD
        }
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            guard bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count else {
                raw.append(bytes[index])
                index += 1
                continue
            }
            flushRaw()
            let escaped = bytes[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "u"):
                var value = hexQuad(at: index)
                index += 4
                if (0xD800...0xDBFF).contains(value), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u"), case let low = hexQuad(at: index + 2), (0xDC00...0xDFFF).contains(low)
                {
                    value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
                    index += 6
                }
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            default: scalars.append(Unicode.Scalar(escaped))
            }
        }
        flushRaw()
        return (String(scalars), index + 1)
    }
}
