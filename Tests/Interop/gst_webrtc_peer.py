#!/usr/bin/python3
"""A WHIP publisher and a WHEP player built on GStreamer's webrtcbin from Debian's packages
(gstreamer1.0-plugins-bad, -good, -base, gstreamer1.0-nice, python3-gst-1.0): a WebRTC stack no one
here wrote (libnice ICE, GStreamer's DTLS and SRTP, libvpx and libopus elements), for interop tests.
Run it with Debian's /usr/bin/python3, which has the GObject bindings.

  gst_webrtc_peer.py whip --url http://127.0.0.1:7880/v1/whip/S --token T --seconds N [--name NAME] [--codec vp8|h264]
  gst_webrtc_peer.py whep --url http://127.0.0.1:7880/v1/whep/S/STREAM --token T --seconds N [--codec vp8|h264]

whip: a test pattern (VP8, or H.264 from x264, 320x240 at 30 fps) and a tone (Opus) through webrtcbin: the offer once
ICE gathering completes, POSTed; the answer applied; N seconds of media once connected; DELETE.
Prints {"role": "whip-publisher", "streamId", "location", "connected", "connectSeconds",
"postStatus", "deleteStatus", "offerSentAt"}.
whep: two receive-only transceivers (VP8 or H.264, Opus), the offer POSTed, the answer applied, every
received track decoded (decodebin) and its frames counted for N seconds after the POST; DELETE.
Prints {"role": "whep-player", "subscriberId", "location", "connected", "videoFrames",
"audioFrames", "width", "height", "firstFrameSeconds", "postStatus", "deleteStatus"}.

Exit status: 0 when media flowed (whip: connected; whep: decoded video), 1 when it did not, 2 when
the server refused the POST ({"error": {"status", "body"}} in the JSON line).
"""
import argparse
import json
import sys
import threading
import time
import urllib.request

import gi

import http_resource

gi.require_version("Gst", "1.0")
gi.require_version("GstSdp", "1.0")
gi.require_version("GstWebRTC", "1.0")
from gi.repository import GLib, Gst, GstSdp, GstWebRTC  # noqa: E402

CONNECT_TIMEOUT = http_resource.TIMEOUT
VIDEO_CAPS = {
    "vp8": "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000",
    # The payloader fills in the profile and level the encoder chose.
    "h264": "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000",
}
# What a player offers to receive: H.264 in packetization mode 1, constrained baseline up to level 3.1.
RECEIVE_VIDEO_CAPS = dict(
    VIDEO_CAPS, h264=VIDEO_CAPS["h264"] + ",packetization-mode=(string)1,profile-level-id=(string)42e01f")
VIDEO_ENCODERS = {
    "vp8": "vp8enc deadline=1 target-bitrate=600000 keyframe-max-dist=60 ! rtpvp8pay",
    # What OBS and ffmpeg send: constrained baseline from x264 (gstreamer1.0-plugins-ugly), fragmented (FU-A).
    "h264": "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 bitrate=600 "
    "! video/x-h264,profile=constrained-baseline,stream-format=byte-stream ! h264parse "
    "! rtph264pay config-interval=-1 aggregate-mode=zero-latency",
}
AUDIO_CAPS = "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,encoding-params=(string)2"


class Peer:
    """One webrtcbin in a pipeline, driven from the GLib main loop: offer, POST when ICE gathering is
    complete, answer, then media for `seconds` after the POST (whep) or after connecting (whip)."""

    def __init__(self, args, out: dict, pipeline: Gst.Pipeline):
        self.args, self.out, self.pipeline = args, out, pipeline
        self.webrtc = pipeline.get_by_name("webrtc")
        # Tests use loopback only; libnice leaves loopback addresses out unless it is given them.
        # (Held: the binding would release webrtcbin's own reference with a temporary.)
        self.ice = self.webrtc.get_property("ice-agent")
        self.ice.emit("add-local-ip-address", "127.0.0.1")
        self.loop = GLib.MainLoop()
        self.started = None
        self.location = None
        self.offer_posted = False
        self.webrtc.connect("on-negotiation-needed", self.on_negotiation_needed)
        self.webrtc.connect("notify::ice-gathering-state", self.on_gathering)
        self.webrtc.connect("notify::connection-state", self.on_connection_state)

    def run(self) -> None:
        self.pipeline.set_state(Gst.State.PLAYING)
        GLib.timeout_add(int(CONNECT_TIMEOUT * 1000), self.give_up)
        self.loop.run()
        self.pipeline.set_state(Gst.State.NULL)
        if self.location:
            self.out["deleteStatus"] = http_resource.delete(self.args.url, self.args.token, self.location)

    def give_up(self) -> bool:
        if not self.out.get("connected"):
            self.out.setdefault("message", "did not connect in time")
            self.loop.quit()
        return False

    def on_negotiation_needed(self, element) -> None:
        promise = Gst.Promise.new_with_change_func(self.on_offer, element, None)
        element.emit("create-offer", None, promise)

    def on_offer(self, promise, element, _) -> None:
        promise.wait()
        reply = promise.get_reply()
        offer = reply.get_value("offer") if reply else None
        # Before the encoders' caps are known webrtcbin cannot offer yet; it asks again once they are.
        if offer is not None:
            element.emit("set-local-description", offer, Gst.Promise.new())

    def on_gathering(self, element, _) -> None:
        if element.get_property("ice-gathering-state") != GstWebRTC.WebRTCICEGatheringState.COMPLETE or self.offer_posted:
            return
        self.offer_posted = True
        sdp = element.get_property("local-description").sdp.as_text()
        GLib.idle_add(self.post, sdp)

    def post(self, sdp: str) -> bool:
        self.started = time.monotonic()
        body = http_resource.post_offer(self.args.url, self.args.token, sdp, self.out, self.resource_key)
        if body is None:
            self.loop.quit()
            return False
        self.location = self.out["location"]
        self.created()
        _, message = GstSdp.SDPMessage.new_from_text(body)
        answer = GstWebRTC.WebRTCSessionDescription.new(GstWebRTC.WebRTCSDPType.ANSWER, message)
        self.webrtc.emit("set-remote-description", answer, Gst.Promise.new())
        return False

    def created(self) -> None:
        """The server took the offer."""

    def on_connection_state(self, element, _) -> None:
        state = element.get_property("connection-state")
        if state == GstWebRTC.WebRTCPeerConnectionState.CONNECTED and not self.out.get("connected"):
            self.out["connected"] = True
            self.out["connectSeconds"] = round(time.monotonic() - self.started, 3)
            self.connected()
        elif state == GstWebRTC.WebRTCPeerConnectionState.FAILED:
            self.out["message"] = "connection failed"
            self.loop.quit()

    def connected(self) -> None:
        GLib.timeout_add(int(self.args.seconds * 1000), self.loop.quit)


class Publisher(Peer):
    resource_key = "streamId"

    def __init__(self, args, out: dict):
        pipeline = Gst.parse_launch(
            "webrtcbin name=webrtc bundle-policy=max-bundle "
            "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! videoconvert "
            f"! {VIDEO_ENCODERS[args.codec]} ! {VIDEO_CAPS[args.codec]} ! webrtc. "
            f"audiotestsrc is-live=true wave=sine ! audioconvert ! audioresample ! opusenc ! rtpopuspay ! {AUDIO_CAPS} ! webrtc.")
        super().__init__(args, out, pipeline)


class Player(Peer):
    resource_key = "subscriberId"

    def __init__(self, args, out: dict):
        pipeline = Gst.Pipeline.new("player")
        webrtc = Gst.ElementFactory.make("webrtcbin", "webrtc")
        webrtc.set_property("bundle-policy", GstWebRTC.WebRTCBundlePolicy.MAX_BUNDLE)
        pipeline.add(webrtc)
        super().__init__(args, out, pipeline)
        self.counts = {"video": 0, "audio": 0}
        self.lock = threading.Lock()
        for caps in (RECEIVE_VIDEO_CAPS[args.codec], AUDIO_CAPS):
            self.webrtc.emit("add-transceiver", GstWebRTC.WebRTCRTPTransceiverDirection.RECVONLY, Gst.Caps.from_string(caps))
        self.webrtc.connect("pad-added", self.on_pad)

    def created(self) -> None:
        GLib.timeout_add(int(self.args.seconds * 1000), self.loop.quit)

    def connected(self) -> None:
        pass

    def on_pad(self, _, pad) -> None:
        if pad.direction != Gst.PadDirection.SRC:
            return
        decode = Gst.ElementFactory.make("decodebin")
        decode.connect("pad-added", self.on_decoded_pad)
        self.pipeline.add(decode)
        decode.sync_state_with_parent()
        pad.link(decode.get_static_pad("sink"))

    def on_decoded_pad(self, _, pad) -> None:
        kind = "video" if pad.get_current_caps().to_string().startswith("video/") else "audio"
        sink = Gst.ElementFactory.make("fakesink")
        sink.set_property("signal-handoffs", True)
        sink.set_property("sync", False)
        sink.connect("handoff", self.on_frame, kind)
        self.pipeline.add(sink)
        sink.sync_state_with_parent()
        pad.link(sink.get_static_pad("sink"))

    def on_frame(self, _, buffer, pad, kind: str) -> None:
        with self.lock:
            self.counts[kind] += 1
            if kind == "video" and self.counts["video"] == 1:
                self.out["firstFrameSeconds"] = round(time.monotonic() - self.started, 3)
                self.out["firstFrameAt"] = time.time()
                structure = pad.get_current_caps().get_structure(0)
                self.out["width"], self.out["height"] = structure.get_value("width"), structure.get_value("height")

    def run(self) -> None:
        super().run()
        self.out["videoFrames"], self.out["audioFrames"] = self.counts["video"], self.counts["audio"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["whip", "whep"])
    parser.add_argument("--url", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--name")
    parser.add_argument("--codec", choices=["vp8", "h264"], default="vp8", help="the video codec sent or offered to receive")
    args = parser.parse_args()
    if args.name is not None:
        args.url += "?name=" + urllib.request.quote(args.name)
    Gst.init(None)
    out = {"role": "whip-publisher" if args.mode == "whip" else "whep-player", "connected": False}
    peer = Publisher(args, out) if args.mode == "whip" else Player(args, out)
    peer.run()
    print(json.dumps(out), flush=True)
    if "error" in out:
        return 2
    if args.mode == "whip":
        return 0 if out["connected"] else 1
    return 0 if out.get("videoFrames", 0) > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
