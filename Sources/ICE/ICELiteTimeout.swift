/// What `ICELiteAgent.tick` reports when time has run out.
public enum ICELiteTimeout: Hashable, Sendable {
    /// No successful check from the nominated address within the consent timeout (RFC 7675): the
    /// peer no longer consents to receive. Stop sending; the agent has forgotten every address, so
    /// a later check starts over as if the transport were new.
    case consentExpired
}
