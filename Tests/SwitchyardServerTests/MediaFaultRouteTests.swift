import Foundation
import Testing

/// The media fault-injection routes (loss and rate caps on one subscriber's downlink or one stream's
/// uplink) refuse what they cannot do, naming it.
@Suite struct MediaFaultRouteTests {
    @Test func aFaultWithNothingInItOrForNobodyIsRefusedByName() async throws {
        let harness = try await DaemonHarness.start { configuration in configuration.media.faultInjection = true }
        _ = try await harness.connect(session: "faults", role: .publisher)
        let token = try await harness.restToken()
        let empty = try await harness.http("PUT", "/v1/sessions/faults/subscribers/sb_none/fault", token: token, body: "{}")
        #expect(empty.status == 400)
        #expect(String(decoding: empty.body, as: UTF8.self).contains("give dropShare, rateCapBitrate or both"))
        let wrongType = try await harness.http(
            "PUT", "/v1/sessions/faults/streams/st_none/fault", token: token, body: #"{"rateCapBitrate": "fast"}"#)
        #expect(wrongType.status == 400)
        #expect(String(decoding: wrongType.body, as: UTF8.self).contains("body.rateCapBitrate"))
        // The route's own 404, naming what it did not find, not the router's for an unknown path.
        for (path, missing) in [
            ("/v1/sessions/faults/subscribers/sb_none/fault", "no subscriber sb_none in session faults"),
            ("/v1/sessions/faults/streams/st_none/fault", "no stream st_none in session faults"),
        ] {
            let response = try await harness.http("PUT", path, token: token, body: #"{"rateCapBitrate": 300000}"#)
            #expect(response.status == 404, "\(path)")
            #expect(String(decoding: response.body, as: UTF8.self).contains(missing), "\(path)")
        }
        try await harness.stop()
    }
}
