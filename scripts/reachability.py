#!/usr/bin/env python3
"""Reachability: how long a call takes to start, and what the daemon's CPU costs per forwarded packet,
for a browser whose network lets UDP through, one whose network drops UDP (ICE-TCP to the daemon),
and one whose network passes only TCP to port 443 (TURN over TLS through a private coturn).

Usage: scripts/reachability.py --bin DIR [--runs 5] [--json FILE] [--modes udp,tcp,turn-tls]

Needs root, iproute2, nftables, Debian's chromium and chromium-driver, selenium (make interop-peers
installs them) and, for turn-tls, coturn and openssl. Makes one network namespace joined to this one
by a veth pair; per mode its nftables rules drop what that network drops, a fresh DIR/switchyard
listens on the veth address (with a `turn` section and a coturn on 443 for turn-tls), and
Tests/Interop/browser_demo.py runs --runs times inside the namespace: two Chromium tabs, A publishing
camera and microphone, B decoding them. Per run: page A's join -> page B's first decoded frame, the
selected candidate pair's path, and the daemon's CPU time over the packets it sent during the run.
Prints p50 / p95 per mode, the TCP and TURN p95 against UDP's (target: within 300 ms) and the CPU per
packet against UDP's (target for TCP: at most 2x); writes them to --json. Exits 1 when a run decoded
nothing. Removes the namespace, the daemons and coturn when done.
"""
import argparse, base64, json, os, re, secrets, shutil, socket, statistics, subprocess, sys, tempfile, time, urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BROWSER = os.path.join(ROOT, "Tests", "Interop", "browser_demo.py")
NAMESPACE, HOST_LINK, CLIENT_LINK = f"sy-reach{os.getpid() % 10000}", f"syrh{os.getpid() % 10000}", f"syrc{os.getpid() % 10000}"
HOST, CLIENT = "10.232.0.1", "10.232.0.2"
RULES = {
    "udp": "",
    "tcp": "meta l4proto udp drop;",
    # Only HTTPS gets out: TCP to 443 (coturn's TLS) and to the daemon's HTTP port, which stands for
    # the app's HTTPS on 443 (a second address or an SNI router in production, docs/turn.md).
    "turn-tls": 'oifname "lo" accept; ct state established,related accept; tcp dport {{ 443, {http} }} accept; drop;',
}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def sh(*command, check=True):
    return subprocess.run(command, check=check, capture_output=True, text=True).stdout


def make_namespace():
    sh("ip", "netns", "del", NAMESPACE, check=False)
    sh("ip", "netns", "add", NAMESPACE)
    sh("ip", "link", "add", HOST_LINK, "type", "veth", "peer", "name", CLIENT_LINK)
    sh("ip", "link", "set", CLIENT_LINK, "netns", NAMESPACE)
    sh("ip", "addr", "add", f"{HOST}/30", "dev", HOST_LINK)
    sh("ip", "link", "set", HOST_LINK, "up")
    inside = ("ip", "netns", "exec", NAMESPACE)
    sh(*inside, "ip", "addr", "add", f"{CLIENT}/30", "dev", CLIENT_LINK)
    sh(*inside, "ip", "link", "set", CLIENT_LINK, "up")
    sh(*inside, "ip", "link", "set", "lo", "up")


def block(mode, http_port):
    sh("ip", "netns", "exec", NAMESPACE, "nft", "delete table inet reachability", check=False)
    rules = RULES[mode].format(http=http_port)
    sh("ip", "netns", "exec", NAMESPACE, "nft",
       f"add table inet reachability; add chain inet reachability out {{ type filter hook output priority 0; policy accept; {rules} }}")


def free_port():
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def spki_hash(certificate):
    """The base64 SHA-256 of a certificate's public key, as --ignore-certificate-errors-spki-list takes it."""
    public_key = subprocess.run(["openssl", "x509", "-in", certificate, "-pubkey", "-noout"], check=True, capture_output=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public_key, check=True, capture_output=True).stdout
    digest = subprocess.run(["openssl", "dgst", "-sha256", "-binary"], input=der, check=True, capture_output=True).stdout
    return base64.b64encode(digest).decode()


def start_coturn(directory, secret):
    """coturn from the shipped Config/turnserver.conf, TLS on HOST:443 with a self-signed certificate,
    relaying to HOST only."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
                    "-subj", "/CN=turn.reachability.test", "-keyout", f"{directory}/key.pem", "-out", f"{directory}/cert.pem"],
                   check=True, capture_output=True)
    replaced = {"listening-port", "tls-listening-port", "cert", "pkey", "static-auth-secret", "allowed-peer-ip", "realm"}
    with open(os.path.join(ROOT, "Config", "turnserver.conf")) as file:
        kept = [line.rstrip("\n") for line in file if line.split("=", 1)[0].strip() not in replaced]
    kept += [f"listening-ip={HOST}", f"relay-ip={HOST}", "listening-port=3478", "tls-listening-port=443",
             f"cert={directory}/cert.pem", f"pkey={directory}/key.pem", f"static-auth-secret={secret}", "realm=reachability.test",
             f"allowed-peer-ip={HOST}", f"pidfile={directory}/turnserver.pid", f"log-file={directory}/turnserver.log", "simple-log",
             f"userdb={directory}/turndb"]
    with open(f"{directory}/turnserver.conf", "w") as file:
        file.write("\n".join(kept) + "\n")
    coturn = subprocess.Popen(["turnserver", "-c", f"{directory}/turnserver.conf"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        with socket.socket() as probe:
            if probe.connect_ex((HOST, 443)) == 0:
                return coturn
        time.sleep(0.05)
    coturn.terminate()
    raise SystemExit("coturn did not listen on 443 within 5 s")


def start_daemon(bin_dir, directory, turn_secret):
    port = free_port()
    with open(os.path.join(ROOT, "Config", "switchyard.json")) as file:
        configuration = json.load(file)
    configuration.pop("$schema", None)
    configuration["server"]["host"] = HOST
    configuration["server"]["port"] = port
    configuration["media"]["listenAddress"] = HOST
    configuration["media"]["portRange"] = {"first": 47100, "last": 47199}
    configuration["logging"]["level"] = "warning"
    if turn_secret:
        configuration["turn"] = {"urls": [f"turns:{HOST}:443?transport=tcp"], "sharedSecret": turn_secret}
    path = f"{directory}/switchyard-{port}.json"
    with open(path, "w") as file:
        json.dump(configuration, file)
    daemon = subprocess.Popen([os.path.join(bin_dir, "switchyard"), "--config", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://{HOST}:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(f"{base}/health").read()
            return daemon, base, path
        except OSError:
            time.sleep(0.1)
    daemon.terminate()
    raise SystemExit("the daemon did not answer /health within 10 s")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as file:
        fields = file.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def packets_sent(base):
    text = urllib.request.urlopen(f"{base}/metrics").read().decode()
    match = re.search(r"^switchyard_media_packets_sent_total (\S+)$", text, re.MULTILINE)
    return float(match.group(1)) if match else 0.0


def token(bin_dir, config, session, name):
    return sh(os.path.join(bin_dir, "switchyard"), "token", "--config", config, "--session", session, "--data", f"name={name}").strip()


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def run_mode(mode, arguments, directory):
    secret = secrets.token_hex(32) if mode == "turn-tls" else None
    coturn = start_coturn(directory, secret) if secret else None
    daemon, base, config = start_daemon(arguments.bin, directory, secret)
    block(mode, int(base.rsplit(":", 1)[1]))
    joins, paths, cpu, packets = [], [], 0.0, 0.0
    try:
        for index in range(arguments.runs):
            session = f"reach-{mode}-{index}"
            before_cpu, before_packets = cpu_seconds(daemon.pid), packets_sent(base)
            command = ["ip", "netns", "exec", NAMESPACE, sys.executable, BROWSER, "--base", base, "--session", session,
                       "--timeout", "30", "--token-a", token(arguments.bin, config, session, "A"),
                       "--token-b", token(arguments.bin, config, session, "B")]
            if mode == "turn-tls":
                # The private coturn's certificate is self-signed: Chromium trusts exactly its key, as
                # the interop test does, and would refuse any other.
                command += [f"--chromium-flag=--ignore-certificate-errors-spki-list={spki_hash(f'{directory}/cert.pem')}"]
            run = subprocess.run(command, capture_output=True, text=True, timeout=120)
            report = json.loads(run.stdout.strip().splitlines()[-1]) if run.stdout.strip() else {}
            if not report.get("ok") or report.get("joinToFirstFrameMs") is None:
                print(f"{mode} run {index + 1}: {report.get('error')} {run.stderr.strip()[-1500:]}", file=sys.stderr)
                return None
            cpu += cpu_seconds(daemon.pid) - before_cpu
            packets += packets_sent(base) - before_packets
            pair = (report.get("candidatePair") or {}).get("local") or {}
            path = pair.get("candidateType") == "relay" and f"relay/{pair.get('relayProtocol') or '?'}" or pair.get("protocol")
            joins.append(report["joinToFirstFrameMs"])
            paths.append(path)
            print(f"{mode} run {index + 1}: join -> first frame {report['joinToFirstFrameMs']} ms over {path}", flush=True)
    finally:
        daemon.terminate()
        daemon.wait()
        if coturn:
            coturn.terminate()
            coturn.wait()
    return {"joinToFirstFrameMs": joins, "p50": percentile(joins, 0.5), "p95": percentile(joins, 0.95), "paths": paths,
            "daemonCPUSeconds": round(cpu, 3), "packetsSent": int(packets),
            "cpuMicrosecondsPerPacket": round(1e6 * cpu / packets, 2) if packets else None}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="the directory with switchyard (a release build)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--modes", default="udp,tcp,turn-tls")
    parser.add_argument("--json")
    arguments = parser.parse_args()
    modes = [mode for mode in arguments.modes.split(",") if mode]
    if "turn-tls" in modes and not shutil.which("turnserver"):
        raise SystemExit("turn-tls needs coturn (apt-get install coturn)")
    directory = tempfile.mkdtemp(prefix="switchyard-reachability-")
    make_namespace()
    results = {}
    try:
        for mode in modes:
            result = run_mode(mode, arguments, directory)
            if result is None:
                return 1
            results[mode] = result
    finally:
        sh("ip", "netns", "del", NAMESPACE, check=False)
        sh("ip", "link", "del", HOST_LINK, check=False)
        shutil.rmtree(directory, ignore_errors=True)
    udp = results.get("udp")
    print(f"\n{'network':<10} {'path':<14} {'join p50':>9} {'join p95':>9} {'vs UDP p95':>11} {'µs/packet':>10} {'vs UDP':>7}")
    for mode, result in results.items():
        paths = ",".join(sorted(set(str(path) for path in result["paths"])))
        delta = f"{result['p95'] - udp['p95']:+d} ms" if udp and mode != "udp" else "-"
        ratio = (f"{result['cpuMicrosecondsPerPacket'] / udp['cpuMicrosecondsPerPacket']:.2f}x"
                 if udp and mode != "udp" and udp["cpuMicrosecondsPerPacket"] and result["cpuMicrosecondsPerPacket"] else "-")
        result["p95MinusUDPMs"] = result["p95"] - udp["p95"] if udp else None
        print(f"{mode:<10} {paths:<14} {result['p50']:>6} ms {result['p95']:>6} ms {delta:>11} {result['cpuMicrosecondsPerPacket']!s:>10} {ratio:>7}")
    if arguments.json:
        with open(arguments.json, "w") as file:
            json.dump({"runs": arguments.runs, "modes": results}, file, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
