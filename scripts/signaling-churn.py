#!/usr/bin/env python3
"""Floods a running switchyard daemon's signaling port and reports its resident memory.

Usage: scripts/signaling-churn.py --pid PID [--url ws://127.0.0.1:7880/v1/ws] [--token-command CMD]
       [--idle 500] [--clients 300] [--seconds 60] [--rounds 1]

Each round: opens --idle WebSockets that never send `connect` (the daemon closes them after its
connect timeout), then for --seconds keeps --clients clients churning (open, connect, a few signals,
disconnect or a dropped socket). Prints the daemon's RSS (from /proc/PID/status) before, after the
idle sockets were closed, and after each round; the daemon must be on loopback with the development
credentials unless --token-command prints tokens ("{session}" is replaced by the session id).
"""
import argparse, asyncio, json, random, subprocess, time

import websockets


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


def descriptors(pid):
    import os
    return len(os.listdir(f"/proc/{pid}/fd"))


async def idle_sockets(url, count, hold_seconds):
    sockets = []
    for _ in range(count):
        try:
            sockets.append(await websockets.connect(url, max_size=None))
        except Exception:
            pass
    await asyncio.sleep(hold_seconds)
    for socket in sockets:
        try:
            await socket.close()
        except Exception:
            pass


async def churner(url, tokens, deadline, counters):
    while time.monotonic() < deadline:
        session, token = random.choice(tokens)
        try:
            async with websockets.connect(url, max_size=None) as socket:
                await socket.send(json.dumps({"v": 1, "id": 1, "method": "connect", "params": {"sessionId": session, "token": token}}))
                await socket.recv()
                for index in range(3):
                    await socket.send(json.dumps({"v": 1, "id": 2 + index, "method": "signal", "params": {"type": "churn", "data": "x" * 512}}))
                if random.random() < 0.5:
                    await socket.send(json.dumps({"v": 1, "id": 9, "method": "disconnect"}))
                    try:
                        while True:
                            await asyncio.wait_for(socket.recv(), 2)
                    except Exception:
                        pass
                else:
                    socket.transport.abort()
            counters["done"] += 1
        except Exception:
            counters["failed"] += 1


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--url", default="ws://127.0.0.1:7880/v1/ws")
    parser.add_argument("--token-command", default=None)
    parser.add_argument("--idle", type=int, default=500)
    parser.add_argument("--idle-hold", type=float, default=12)
    parser.add_argument("--clients", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--sessions", type=int, default=10)
    arguments = parser.parse_args()

    tokens = []
    for index in range(arguments.sessions):
        session = f"churn{index}"
        if arguments.token_command:
            token = subprocess.check_output(arguments.token_command.replace("{session}", session), shell=True, text=True).strip()
        else:
            http = arguments.url.replace("ws://", "http://").replace("/v1/ws", "")
            import urllib.request
            with urllib.request.urlopen(f"{http}/v1/dev/token?sessionId={session}&role=publisher") as response:
                token = json.load(response)["token"]
        tokens.append((session, token))

    print(f"start rss_kib={rss_kib(arguments.pid)} fds={descriptors(arguments.pid)}", flush=True)
    for round_index in range(arguments.rounds):
        await idle_sockets(arguments.url, arguments.idle, arguments.idle_hold)
        await asyncio.sleep(1)
        print(f"round {round_index + 1} after_idle rss_kib={rss_kib(arguments.pid)} fds={descriptors(arguments.pid)}", flush=True)
        counters = {"done": 0, "failed": 0}
        deadline = time.monotonic() + arguments.seconds
        await asyncio.gather(*(churner(arguments.url, tokens, deadline, counters) for _ in range(arguments.clients)))
        await asyncio.sleep(2)
        print(f"round {round_index + 1} after_churn rss_kib={rss_kib(arguments.pid)} fds={descriptors(arguments.pid)} "
              f"clients_done={counters['done']} failed={counters['failed']}", flush=True)


asyncio.run(main())
