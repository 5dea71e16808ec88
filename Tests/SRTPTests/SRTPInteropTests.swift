import Foundation
import SRTP
import TestSupport
import Testing

/// Interop with SRTP implementations outside this process: `srtp_peer` built against the other
/// libsrtp2 build (system NSS and OpenSSL; this process links one of them) and pylibsrtp, which
/// bundles its own libsrtp 2.7 and OpenSSL. Every profile, RTP and RTCP, both directions, and the
/// protected bytes must be identical. `make test` builds the peers (`make interop-peers`).
@Suite(.serialized) struct SRTPInteropTests {
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A peer process speaking the line protocol of Tests/Interop/srtp_peer.c.
    final class Peer {
        let name: String
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = Data()

        init(name: String, executable: URL, arguments: [String] = []) throws {
            self.name = name
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        deinit {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        /// Sends one request line and returns the reply line.
        func ask(_ request: String) throws -> String {
            input.fileHandleForWriting.write(Data((request + "\n").utf8))
            while true {
                if let newline = buffered.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffered[buffered.startIndex..<newline], as: UTF8.self)
                    buffered = Data(buffered[(newline + 1)...])
                    return line
                }
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else { throw CocoaError(.fileReadUnknown) }
                buffered.append(chunk)
            }
        }
    }

    static func peers() throws -> [Peer] {
        let directory = repositoryRoot.appendingPathComponent(".build-srtp/interop")
        var peers: [Peer] = []
        for build in ["system", "openssl"] {
            let executable = directory.appendingPathComponent("srtp_peer_\(build)")
            guard FileManager.default.isExecutableFile(atPath: executable.path) else {
                throw InteropSetupError(missing: executable.path)
            }
            peers.append(try Peer(name: "libsrtp2 \(build) build", executable: executable))
        }
        peers.append(
            try Peer(
                name: "pylibsrtp", executable: URL(fileURLWithPath: "/usr/bin/env"),
                arguments: ["python3", repositoryRoot.appendingPathComponent("Tests/Interop/pylibsrtp_peer.py").path]))
        return peers
    }

    struct InteropSetupError: Error, CustomStringConvertible {
        let missing: String
        var description: String { "\(missing) is missing: run `make interop-peers` (make test does)" }
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// A receiver report with one report block, as a subscriber sends it.
    private static let receiverReport: [UInt8] = [
        0x81, 0xC9, 0x00, 0x07, 0x11, 0x22, 0x33, 0x44,
        0x55, 0x66, 0x77, 0x88, 0x02, 0x00, 0x00, 0x05, 0x00, 0x00, 0x10, 0x20,
        0x00, 0x00, 0x00, 0x30, 0xAB, 0xCD, 0xEF, 0x01, 0x00, 0x00, 0x01, 0x00,
    ]

    @Test(arguments: SRTPProfile.allCases)
    func everyPeerAgreesByteForByte(profile: SRTPProfile) throws {
        var generator = SeededGenerator(seed: 0x5EED_0000 + UInt64(profile.rawValue.count))
        let keys = try SRTPKeyMaterial(
            profile: profile, keyAndSalt: (0..<SRTPKeyMaterial.random(profile: profile).keyAndSalt.count).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let rtp = rtpPacket(sequenceNumber: 4242, payloadLength: 1000)
        for peer in try Self.peers() {
            for (kind, plain) in [("rtp", rtp), ("rtcp", Self.receiverReport)] {
                let sender = try SRTPSession(keyMaterial: keys, direction: .outbound)
                var protected = PacketBuffer(plain)
                try protected.apply { buffer, length throws(SRTPError) in
                    kind == "rtp" ? try sender.protectRTP(buffer, length: length) : try sender.protectRTCP(buffer, length: length)
                }
                let keyHex = Self.hex(keys.keyAndSalt)
                let theirs = try peer.ask("protect \(kind) \(profile.rawValue) \(keyHex) \(Self.hex(plain))")
                #expect(theirs == "ok " + Self.hex(protected.bytes), "\(peer.name) protect \(kind) \(profile.rawValue)")

                let unprotected = try peer.ask("unprotect \(kind) \(profile.rawValue) \(keyHex) \(Self.hex(protected.bytes))")
                #expect(unprotected == "ok " + Self.hex(plain), "\(peer.name) unprotect \(kind) \(profile.rawValue)")

                guard theirs.hasPrefix("ok ") else { continue }
                let receiver = try SRTPSession(keyMaterial: keys, direction: .inbound)
                var received = PacketBuffer(hexBytes(String(theirs.dropFirst(3))))
                try received.apply { buffer, length throws(SRTPError) in
                    kind == "rtp" ? try receiver.unprotectRTP(buffer, length: length) : try receiver.unprotectRTCP(buffer, length: length)
                }
                #expect(received.bytes == plain, "we unprotect what \(peer.name) protected (\(kind) \(profile.rawValue))")

                var tampered = protected.bytes
                tampered[tampered.count - 1] ^= 0x01
                let refused = try peer.ask("unprotect \(kind) \(profile.rawValue) \(keyHex) \(Self.hex(tampered))")
                #expect(refused.hasPrefix("error "), "\(peer.name) refuses a tampered \(kind) packet")
            }
        }
    }
}
