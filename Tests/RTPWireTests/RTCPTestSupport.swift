// Helpers shared by the RTCP tests. Named with an RTCP prefix so they cannot collide with helpers
// other test files in this target define.

import TestSupport

@testable import RTPWire

/// Hands `body` a view of the one RTCP packet at the start of `bytes`.
func withRTCPPacket<R>(_ bytes: [UInt8], _ body: (RTCPPacketView) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTCPPacketView(parsing: raw)) }
}

/// Hands `body` the compound packet `bytes` holds.
func withRTCPCompound<R>(_ bytes: [UInt8], _ body: (RTCPCompoundPacket) throws -> R) throws -> R {
    try bytes.withUnsafeBytes { raw in try body(try RTCPCompoundPacket(parsing: raw)) }
}
