/// Offers as real stacks write them, with LF line ends (the parser takes CRLF too; see the tests).
enum SDPFixtures {
    /// Chrome (unified plan, M12x) publishing a microphone and a camera and opening a data channel.
    static let chromeOffer = """
        v=0
        o=- 5498186869896684180 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1 2
        a=extmap-allow-mixed
        a=msid-semantic: WMS 1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Z2Xq
        a=ice-pwd:PjL5bEuJhGNnBy6sE6GQyKqT
        a=ice-options:trickle
        a=fingerprint:sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendrecv
        a=msid:1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7 8e0c6a43-1f0b-4d7a-9f2e-0c3b7d1a5e66
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:2796174212 cname:qZ2fYnAmCD1R4rVk
        a=ssrc:2796174212 msid:1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7 8e0c6a43-1f0b-4d7a-9f2e-0c3b7d1a5e66
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99 100 101 45 46 102 103 104 105 116 117 118
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:Z2Xq
        a=ice-pwd:PjL5bEuJhGNnBy6sE6GQyKqT
        a=ice-options:trickle
        a=fingerprint:sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C
        a=setup:actpass
        a=mid:1
        a=extmap:14 urn:ietf:params:rtp-hdrext:toffset
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:13 urn:3gpp:video-orientation
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay
        a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type
        a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing
        a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendrecv
        a=msid:1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7 4f1d2b6e-8a3c-4c55-b1f0-2e9d7a6c3b18
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rtpmap:100 VP9/90000
        a=rtcp-fb:100 goog-remb
        a=rtcp-fb:100 transport-cc
        a=rtcp-fb:100 ccm fir
        a=rtcp-fb:100 nack
        a=rtcp-fb:100 nack pli
        a=fmtp:100 profile-id=2
        a=rtpmap:101 rtx/90000
        a=fmtp:101 apt=100
        a=rtpmap:45 AV1/90000
        a=rtcp-fb:45 goog-remb
        a=rtcp-fb:45 transport-cc
        a=rtcp-fb:45 ccm fir
        a=rtcp-fb:45 nack
        a=rtcp-fb:45 nack pli
        a=fmtp:45 level-idx=5;profile=0;tier=0
        a=rtpmap:46 rtx/90000
        a=fmtp:46 apt=45
        a=rtpmap:102 H264/90000
        a=rtcp-fb:102 goog-remb
        a=rtcp-fb:102 transport-cc
        a=rtcp-fb:102 ccm fir
        a=rtcp-fb:102 nack
        a=rtcp-fb:102 nack pli
        a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:103 rtx/90000
        a=fmtp:103 apt=102
        a=rtpmap:104 H264/90000
        a=rtcp-fb:104 goog-remb
        a=rtcp-fb:104 transport-cc
        a=rtcp-fb:104 ccm fir
        a=rtcp-fb:104 nack
        a=rtcp-fb:104 nack pli
        a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:105 rtx/90000
        a=fmtp:105 apt=104
        a=rtpmap:116 red/90000
        a=rtpmap:117 rtx/90000
        a=fmtp:117 apt=116
        a=rtpmap:118 ulpfec/90000
        a=ssrc-group:FID 1613396447 2617432384
        a=ssrc:1613396447 cname:qZ2fYnAmCD1R4rVk
        a=ssrc:1613396447 msid:1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7 4f1d2b6e-8a3c-4c55-b1f0-2e9d7a6c3b18
        a=ssrc:2617432384 cname:qZ2fYnAmCD1R4rVk
        a=ssrc:2617432384 msid:1b1a2ae3-4ea6-4b5c-9d43-54e2f4c1e2a7 4f1d2b6e-8a3c-4c55-b1f0-2e9d7a6c3b18
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel
        c=IN IP4 0.0.0.0
        a=ice-ufrag:Z2Xq
        a=ice-pwd:PjL5bEuJhGNnBy6sE6GQyKqT
        a=ice-options:trickle
        a=fingerprint:sha-256 A5:4D:CA:18:25:30:BB:1D:6D:13:2C:DE:D6:23:7B:2E:D9:1E:3F:72:1F:CB:19:71:17:44:94:D6:49:3C:9D:5C
        a=setup:actpass
        a=mid:2
        a=sctp-port:5000
        a=max-message-size:262144

        """

    /// Chrome publishing a camera as three rid-named simulcast layers (`sendEncodings` with rids): no
    /// `a=ssrc` in the video m-section at all.
    static let chromeSimulcastOffer = """
        v=0
        o=- 3281652197751304611 2 IN IP4 127.0.0.1
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=extmap-allow-mixed
        a=msid-semantic: WMS 7c4a9e0b-5d2f-4e8a-a1c3-96b0f2d4e871
        m=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:r8Jd
        a=ice-pwd:c0Qm7n3XvKbT1p9Zs2LwHy4E
        a=ice-options:trickle
        a=fingerprint:sha-256 34:60:BE:31:20:1E:69:FE:DA:A0:EE:E8:B9:99:7F:5C:7C:29:99:FD:AF:E5:93:25:3C:D6:54:AF:4D:FA:D7:14
        a=setup:actpass
        a=mid:0
        a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=sendonly
        a=msid:7c4a9e0b-5d2f-4e8a-a1c3-96b0f2d4e871 0d3e5f71-2b8c-4a96-8e14-7f5c2a9b6d03
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:111 opus/48000/2
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 minptime=10;useinbandfec=1
        a=rtpmap:63 red/48000/2
        a=fmtp:63 111/111
        a=rtpmap:9 G722/8000
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=rtpmap:13 CN/8000
        a=rtpmap:110 telephone-event/48000
        a=rtpmap:126 telephone-event/8000
        a=ssrc:1046259151 cname:8fJ2sWq0LcX5nRbA
        a=ssrc:1046259151 msid:7c4a9e0b-5d2f-4e8a-a1c3-96b0f2d4e871 0d3e5f71-2b8c-4a96-8e14-7f5c2a9b6d03
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99
        c=IN IP4 0.0.0.0
        a=rtcp:9 IN IP4 0.0.0.0
        a=ice-ufrag:r8Jd
        a=ice-pwd:c0Qm7n3XvKbT1p9Zs2LwHy4E
        a=ice-options:trickle
        a=fingerprint:sha-256 34:60:BE:31:20:1E:69:FE:DA:A0:EE:E8:B9:99:7F:5C:7C:29:99:FD:AF:E5:93:25:3C:D6:54:AF:4D:FA:D7:14
        a=setup:actpass
        a=mid:1
        a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id
        a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id
        a=sendonly
        a=msid:7c4a9e0b-5d2f-4e8a-a1c3-96b0f2d4e871 a61f0c8e-3d47-4b2a-9c5e-18e7d0b4f2a9
        a=rtcp-mux
        a=rtcp-rsize
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 goog-remb
        a=rtcp-fb:96 transport-cc
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:98 VP9/90000
        a=rtcp-fb:98 goog-remb
        a=rtcp-fb:98 transport-cc
        a=rtcp-fb:98 ccm fir
        a=rtcp-fb:98 nack
        a=rtcp-fb:98 nack pli
        a=fmtp:98 profile-id=0
        a=rtpmap:99 rtx/90000
        a=fmtp:99 apt=98
        a=rid:q send
        a=rid:h send
        a=rid:f send
        a=simulcast:send q;h;f

        """

    /// aiortc 1.x (`RTCPeerConnection.createOffer` after `addTrack` of an audio and a video track):
    /// candidates gathered before the offer, ICE and DTLS lines last in each m-section, three
    /// fingerprints (aiortc 1.10 and later), `a=rtcp` alongside `a=rtcp-mux`.
    static let aiortcOffer = """
        v=0
        o=- 3930284711 3930284711 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=group:BUNDLE 0 1
        a=msid-semantic:WMS *
        m=audio 52734 UDP/TLS/RTP/SAVPF 96 0 8
        c=IN IP4 192.168.1.23
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:2 urn:ietf:params:rtp-hdrext:ssrc-audio-level
        a=mid:0
        a=msid:2f0f5a4c-3b8e-4f6e-9d1c-7a2b5e8c4d10 b9e1c7d2-6a4f-4e3b-8c5d-0f1a2b3c4d5e
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc:3344951093 cname:5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d
        a=rtpmap:96 opus/48000/2
        a=rtpmap:0 PCMU/8000
        a=rtpmap:8 PCMA/8000
        a=candidate:0f5d6e1a7b2c3d4e5f60718293a4b5c6 1 udp 2130706431 192.168.1.23 52734 typ host
        a=candidate:9a8b7c6d5e4f30211203f4e5d6c7b8a9 1 udp 1694498815 203.0.113.7 52734 typ srflx raddr 192.168.1.23 rport 52734
        a=end-of-candidates
        a=ice-ufrag:9XkT
        a=ice-pwd:bW3n0yHcR5kLmQ2tVfZp8s
        a=fingerprint:sha-256 2E:85:BB:55:B6:72:A8:72:63:7A:CD:74:66:FC:B6:0E:0E:8F:F1:84:63:B0:E4:B2:BA:29:70:34:74:F0:64:AC
        a=fingerprint:sha-384 27:A0:AE:B3:FE:E9:23:2F:8A:F2:21:1F:9E:E4:91:C5:B1:0B:EC:B5:56:3B:FC:1E:6F:93:42:7E:CB:C8:FE:29:55:E5:CD:8E:46:DC:8E:D4:B7:C2:76:4D:2A:5A:4D:76
        a=fingerprint:sha-512 77:06:F8:5D:86:90:02:4A:D6:BD:A3:40:1B:E9:C8:CB:CC:C9:35:F6:CD:1F:61:22:6A:E1:53:38:AE:1A:34:00:4D:33:BA:0D:24:6A:C0:4C:81:B1:BA:F2:3E:3B:F9:EE:F5:F7:9F:2B:49:34:AF:87:F5:52:0B:69:B9:4B:0D:98
        a=setup:actpass
        m=video 52734 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102
        c=IN IP4 192.168.1.23
        a=sendrecv
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid
        a=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time
        a=mid:1
        a=msid:2f0f5a4c-3b8e-4f6e-9d1c-7a2b5e8c4d10 e4f5a6b7-c8d9-4e0f-a1b2-c3d4e5f6a7b8
        a=rtcp:9 IN IP4 0.0.0.0
        a=rtcp-mux
        a=ssrc-group:FID 2201846357 780351416
        a=ssrc:2201846357 cname:5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d
        a=ssrc:780351416 cname:5d8e2f1a-9c7b-4a3e-b6d0-1e2f3a4b5c6d
        a=rtpmap:97 VP8/90000
        a=rtcp-fb:97 nack
        a=rtcp-fb:97 nack pli
        a=rtcp-fb:97 goog-remb
        a=rtpmap:98 rtx/90000
        a=fmtp:98 apt=97
        a=rtpmap:99 H264/90000
        a=rtcp-fb:99 nack
        a=rtcp-fb:99 nack pli
        a=rtcp-fb:99 goog-remb
        a=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f
        a=rtpmap:100 rtx/90000
        a=fmtp:100 apt=99
        a=rtpmap:101 H264/90000
        a=rtcp-fb:101 nack
        a=rtcp-fb:101 nack pli
        a=rtcp-fb:101 goog-remb
        a=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f
        a=rtpmap:102 rtx/90000
        a=fmtp:102 apt=101
        a=candidate:0f5d6e1a7b2c3d4e5f60718293a4b5c6 1 udp 2130706431 192.168.1.23 52734 typ host
        a=candidate:9a8b7c6d5e4f30211203f4e5d6c7b8a9 1 udp 1694498815 203.0.113.7 52734 typ srflx raddr 192.168.1.23 rport 52734
        a=end-of-candidates
        a=ice-ufrag:9XkT
        a=ice-pwd:bW3n0yHcR5kLmQ2tVfZp8s
        a=fingerprint:sha-256 2E:85:BB:55:B6:72:A8:72:63:7A:CD:74:66:FC:B6:0E:0E:8F:F1:84:63:B0:E4:B2:BA:29:70:34:74:F0:64:AC
        a=fingerprint:sha-384 27:A0:AE:B3:FE:E9:23:2F:8A:F2:21:1F:9E:E4:91:C5:B1:0B:EC:B5:56:3B:FC:1E:6F:93:42:7E:CB:C8:FE:29:55:E5:CD:8E:46:DC:8E:D4:B7:C2:76:4D:2A:5A:4D:76
        a=fingerprint:sha-512 77:06:F8:5D:86:90:02:4A:D6:BD:A3:40:1B:E9:C8:CB:CC:C9:35:F6:CD:1F:61:22:6A:E1:53:38:AE:1A:34:00:4D:33:BA:0D:24:6A:C0:4C:81:B1:BA:F2:3E:3B:F9:EE:F5:F7:9F:2B:49:34:AF:87:F5:52:0B:69:B9:4B:0D:98
        a=setup:actpass

        """
}
