import RTPWire

/// The media behaviour behind one endpoint: what a publisher or a subscriber does with what arrives
/// and on every tick. Called on the media loop's thread only.
protocol MediaHandler: AnyObject {
    func received(rtp packet: RTPPacket, now: UInt64, endpoint: MediaEndpoint)
    func received(rtcp compound: UnsafeRawBufferPointer, now: UInt64, endpoint: MediaEndpoint)
    func tick(now: UInt64, endpoint: MediaEndpoint)
}
