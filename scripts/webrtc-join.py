#!/usr/bin/env python3
"""WebRTC join time: how long a WebRTC subscriber joining a stream that is already flowing waits from
its `subscribe` request to its first decoded video frame. aiortc (Tests/Interop/aiortc_peer.py) is
both the publisher and each subscriber, so the figure includes a real stack's ICE, DTLS and decoder.

Usage: scripts/webrtc-join.py --bin DIR [--joins 15] [--json FILE]

Starts DIR/switchyard on a free loopback port with the development credentials, keeps one aiortc
publisher sending 320x240 VP8 at 30 fps, then runs --joins subscribers one after another, each for
3 s. Prints each join and the p50 / p95 / max in milliseconds, and writes them to --json. Exits 1
when a subscriber decoded nothing.
"""
import argparse, json, os, signal, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEER = os.path.join(ROOT, "Tests", "Interop", "aiortc_peer.py")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def token(http, session, role):
    with urllib.request.urlopen(f"{http}/v1/dev/token?sessionId={session}&role={role}") as response:
        return json.load(response)["token"]


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True)
    parser.add_argument("--joins", type=int, default=15)
    parser.add_argument("--json")
    arguments = parser.parse_args()

    port = free_port()
    with open(os.path.join(ROOT, "Config", "switchyard.json")) as file:
        configuration = json.load(file)
    configuration.pop("$schema", None)
    configuration["server"]["port"] = port
    configuration["media"]["portRange"] = {"first": 47000, "last": 47099}
    configuration["logging"]["level"] = "warning"
    config_file = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump(configuration, config_file)
    config_file.close()

    daemon = subprocess.Popen([os.path.join(arguments.bin, "switchyard"), "--config", config_file.name], stderr=subprocess.DEVNULL)
    http, url, session = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}/v1/ws", "webrtc-join"
    publisher = None
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen(f"{http}/health").read()
                break
            except OSError:
                time.sleep(0.1)
        publisher = subprocess.Popen(
            [sys.executable, PEER, "publish", "--url", url, "--session", session, "--token", token(http, session, "publisher"),
             "--seconds", str(30 + 5 * arguments.joins)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(4)
        joins = []
        for index in range(arguments.joins):
            run = subprocess.run(
                [sys.executable, PEER, "subscribe", "--url", url, "--session", session, "--token", token(http, session, "subscriber"),
                 "--seconds", "3"], capture_output=True, text=True, timeout=60)
            report = json.loads(run.stdout.strip().splitlines()[-1]) if run.stdout.strip() else {}
            first = report.get("firstFrameSeconds")
            if first is None:
                print(f"join {index + 1}: no video frame decoded: {run.stdout.strip()} {run.stderr.strip()[-500:]}", file=sys.stderr)
                return 1
            joins.append(first * 1000)
            print(f"join {index + 1}: subscribe -> first decoded frame {first * 1000:.0f} ms", flush=True)
        summary = {
            "joins": len(joins), "firstFrameMilliseconds": [round(value, 1) for value in joins],
            "p50": round(statistics.median(joins), 1), "p95": round(percentile(joins, 0.95), 1), "max": round(max(joins), 1),
        }
        print(f"webrtc-join joins={summary['joins']} p50_ms={summary['p50']} p95_ms={summary['p95']} max_ms={summary['max']}")
        if arguments.json:
            with open(arguments.json, "w") as file:
                json.dump(summary, file, indent=2)
        return 0
    finally:
        for process in (publisher, daemon):
            if process and process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        os.unlink(config_file.name)


sys.exit(main())
