import TestSupport

@testable import ICE

/// RFC 5769 section 2.1: the sample request, from an ICE agent claiming the controlled role.
let rfc5769SampleRequest = hexBytes(
    """
    00 01 00 58   # Binding request, length 88
    21 12 a4 42   # magic cookie
    b7 e7 a7 01 bc 34 d6 86 fa 87 df ae   # transaction ID
    80 22 00 10 53 54 55 4e 20 74 65 73 74 20 63 6c 69 65 6e 74   # SOFTWARE "STUN test client"
    00 24 00 04 6e 00 01 ff   # PRIORITY
    80 29 00 08 93 2f f9 b1 51 26 3b 36   # ICE-CONTROLLED tie-breaker
    00 06 00 09 65 76 74 6a 3a 68 36 76 59 20 20 20   # USERNAME "evtj:h6vY", padded with spaces
    00 08 00 14 9a ea a7 0c bf d8 cb 56 78 1e f2 b5 b2 d3 f2 49 c1 b5 71 a2   # MESSAGE-INTEGRITY
    80 28 00 04 e5 7a 3b cf   # FINGERPRINT
    """)

/// RFC 5769 section 2.2: the sample IPv4 response, mapped address 192.0.2.1 port 32853.
let rfc5769SampleIPv4Response = hexBytes(
    """
    01 01 00 3c   # Binding success response, length 60
    21 12 a4 42
    b7 e7 a7 01 bc 34 d6 86 fa 87 df ae
    80 22 00 0b 74 65 73 74 20 76 65 63 74 6f 72 20   # SOFTWARE "test vector"
    00 20 00 08 00 01 a1 47 e1 12 a6 43   # XOR-MAPPED-ADDRESS
    00 08 00 14 2b 91 f5 99 fd 9e 90 c3 8c 74 89 f9 2a f9 ba 53 f0 6b e7 d7   # MESSAGE-INTEGRITY
    80 28 00 04 c0 7d 4c 96   # FINGERPRINT
    """)

/// The password of both RFC 5769 samples.
let rfc5769Password = "VOkJxbRl1RmTxUk/WvJxBt"
/// The transaction ID of both RFC 5769 samples.
let rfc5769TransactionID = STUNTransactionID(high: 0xb7e7_a701, middle: 0xbc34_d686, low: 0xfa87_dfae)

/// Runs `body` with the message parsed from `bytes` (the view must not outlive the buffer).
func withMessage<Result>(_ bytes: [UInt8], _ body: (STUNMessage) throws -> Result) throws -> Result {
    try bytes.withUnsafeBytes { buffer in
        try body(try STUNMessage(parsing: buffer))
    }
}

/// What parsing `bytes` threw, or nil when it parsed.
func parseError(_ bytes: [UInt8]) -> STUNError? {
    bytes.withUnsafeBytes { buffer in
        do throws(STUNError) {
            _ = try STUNMessage(parsing: buffer)
            return nil
        } catch {
            return error
        }
    }
}

/// The bytes a writer produced into a 1500-byte buffer.
func written(_ write: (UnsafeMutableRawBufferPointer) -> Int) -> [UInt8] {
    var storage = [UInt8](repeating: 0xEE, count: 1500)
    let count = storage.withUnsafeMutableBytes(write)
    return Array(storage.prefix(count))
}

/// A message assembled attribute by attribute, for the shapes the public writer does not make.
func built(
    _ messageClass: STUNMessageClass = .request,
    method: STUNMethod = .binding,
    transactionID: STUNTransactionID = STUNTransactionID(high: 1, middle: 2, low: 3),
    _ attributes: (inout STUNMessageBuilder) -> Void
) -> [UInt8] {
    written { buffer in
        var builder = STUNMessageBuilder(
            into: buffer, messageType: messageClass.messageType(method: method), transactionID: transactionID)
        attributes(&builder)
        return builder.count
    }
}
