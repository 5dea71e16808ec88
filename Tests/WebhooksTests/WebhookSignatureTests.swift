import Foundation
import Testing
import Webhooks

@Suite struct WebhookSignatureTests {
    let secret = "a-secret-of-at-least-thirty-two-bytes"
    let body = Array(#"{"event":"connectionCreated","seq":1}"#.utf8)

    @Test func aSignedDeliveryVerifiesAndTheSignatureIsTheDocumentedHMAC() throws {
        let signature = WebhookSignature.sign(id: "evt_1", timestamp: 1_764_000_000, body: body, secret: secret)
        #expect(signature.hasPrefix("v1,"))
        try WebhookSignature.verify(id: "evt_1", timestamp: 1_764_000_000, signatureHeader: signature, body: body, secret: secret, now: 1_764_000_010)
        // What docs/webhooks.md's Python verifier computes: base64(HMAC-SHA256(secret, "evt_1.1764000000." + body)).
        #expect(signature == "v1,KpqAcUB///dG2BQKpbc870m+TO7/xNNIpN3w4ERCqaM=")
    }

    @Test func aForgedAlteredOrReplayedDeliveryIsRefused() {
        let signature = WebhookSignature.sign(id: "evt_1", timestamp: 1_000, body: body, secret: secret)
        #expect(throws: WebhookSignature.Failure.mismatch) {
            try WebhookSignature.verify(id: "evt_1", timestamp: 1_000, signatureHeader: signature, body: body, secret: "another-secret-of-thirty-two-bytes!", now: 1_000)
        }
        #expect(throws: WebhookSignature.Failure.mismatch) {
            try WebhookSignature.verify(id: "evt_1", timestamp: 1_000, signatureHeader: signature, body: body + [0x20], secret: secret, now: 1_000)
        }
        #expect(throws: WebhookSignature.Failure.mismatch, "the id is signed: a body under another event's id fails") {
            try WebhookSignature.verify(id: "evt_2", timestamp: 1_000, signatureHeader: signature, body: body, secret: secret, now: 1_000)
        }
        #expect(throws: WebhookSignature.Failure.mismatch, "the timestamp is signed: a replay cannot move it forward") {
            try WebhookSignature.verify(id: "evt_1", timestamp: 1_200, signatureHeader: signature, body: body, secret: secret, now: 1_200)
        }
        #expect(throws: WebhookSignature.Failure.stale(timestamp: 1_000, now: 1_301)) {
            try WebhookSignature.verify(id: "evt_1", timestamp: 1_000, signatureHeader: signature, body: body, secret: secret, now: 1_301)
        }
        #expect(throws: WebhookSignature.Failure.mismatch) {
            try WebhookSignature.verify(id: "evt_1", timestamp: 1_000, signatureHeader: "v1,AAAA", body: body, secret: secret, now: 1_000)
        }
    }

    @Test func oneMatchAmongSeveralSignaturesIsEnoughWhileASecretChanges() throws {
        let old = WebhookSignature.sign(id: "evt_1", timestamp: 1_000, body: body, secret: "the-old-secret-of-thirty-two-bytes")
        let new = WebhookSignature.sign(id: "evt_1", timestamp: 1_000, body: body, secret: secret)
        try WebhookSignature.verify(id: "evt_1", timestamp: 1_000, signatureHeader: "\(old) \(new)", body: body, secret: secret, now: 1_000)
    }
}
