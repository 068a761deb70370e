#!/usr/bin/env python3
"""The cost of /metrics: the same gateway with metrics off (A: no
--metrics-listen, every hook a no-op) and on (B: --metrics-listen, and a
scraper reading /metrics every second, as Prometheus would), measured side by
side and alternating with bench/ab.py (same cluster, data and client as
run.py).  Writes bench/results/ab-metrics.json and prints B/A per mode and
concurrency: 1.00 means free.

    python3 bench/metrics.py [--modes tools,discover,flow] [--levels 1,8,32] [--rounds 3]
    make -C bench metrics
"""
import argparse
import json
import pathlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def scrape_forever(port, stop, counts):
    while not stop.wait(1.0):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2) as r:
                r.read()
            counts["ok"] += 1
        except OSError:
            counts["failed"] += 1       # before B has started, or after it stopped


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--modes", default="tools,discover,flow")
    ap.add_argument("--levels", default="1,8,32")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--secs", type=float, default=2)
    args = ap.parse_args()
    port = free_port()
    stop = threading.Event()
    counts = {"ok": 0, "failed": 0}
    scraper = threading.Thread(target=scrape_forever, args=(port, stop, counts), daemon=True)
    scraper.start()
    t0 = time.monotonic()
    try:
        rc = subprocess.call([sys.executable, str(HERE / "ab.py"), "--label", "metrics",
                              "--b-args", f"--metrics-listen 127.0.0.1:{port}",
                              "--modes", args.modes, "--levels", args.levels,
                              "--rounds", str(args.rounds), "--secs", str(args.secs)])
    finally:
        stop.set()
        scraper.join(5)
    if rc != 0:
        return rc
    path = HERE / "results" / "ab-metrics.json"
    out = json.loads(path.read_text())
    out["scrapes"] = dict(counts, seconds=round(time.monotonic() - t0))
    out["note"] = "A: metrics off; B: --metrics-listen and one scrape per second. ratio_b_vs_a 1.0 = no cost."
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"metrics on/off (B/A, median of {args.rounds} rounds); {counts['ok']} scrapes of B during the run")
    for key, res in out["results"].items():
        r = res["ratio_b_vs_a"]
        print(f"  {key:14} {r['median']:.3f}  (min {r['min_max'][0]:.3f}, max {r['min_max'][1]:.3f})")
    return 0 if counts["ok"] > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
