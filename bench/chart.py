#!/usr/bin/env python3
"""bench/results/chart.svg from a run.py result (gnuplot, Debian's gnuplot-nox).

    python3 bench/chart.py [results/full.json] [results/chart.svg]

Four panels: flows/s against concurrency (pgbench floor, 1 gateway, N
gateways behind HAProxy, and the 1.0 baseline when results/full-baseline.json
exists); tools/list requests/s (nginx static alone and behind HAProxy, 1
gateway, HAProxy, the pgbench floor of its SQL call); step-1 p50 latency by workspace size (current and
baseline); gateway RSS.  Medians over the rounds of the run.
"""
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def main():
    src = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else HERE / "results" / "full.json")
    dst = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else HERE / "results" / "chart.svg")
    if not src.is_absolute() and not src.exists():
        src = HERE / src
    if not dst.is_absolute():
        dst = (pathlib.Path.cwd() / dst)
    r = json.loads(src.read_text())
    base_path = src.with_name(src.stem + "-baseline.json")
    base = json.loads(base_path.read_text()) if base_path.exists() else None
    if not shutil.which("gnuplot"):
        sys.exit("gnuplot not found: apt-get install -y gnuplot-nox")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mcpn-chart-"))
    ngw = r.get("haproxy", {}).get("gateways", 2)

    with open(tmp / "flows.dat", "w") as f:
        f.write("# conns pgbench gw1 lb baseline_gw1\n")
        for c, v in sorted(r["flows"].items(), key=lambda kv: int(kv[0])):
            m = v["flows_per_s_median"]
            b = "NaN"
            if base and c in base.get("flows", {}):
                b = base["flows"][c]["flows_per_s_median"]["gw1"]
            f.write(f"{c} {m['pgbench']} {m['gw1']} {m['lb']} {b}\n")
    with open(tmp / "req.dat", "w") as f:
        f.write("# conns nginx gw1_tools lb_tools pgbench_auth gw1_discover lb_nginx\n")
        for c, v in sorted(r["requests"].items(), key=lambda kv: int(kv[0])):
            m = v["requests_per_s_median"]
            f.write(f"{c} {m['nginx']} {m['gw1_tools']} {m['lb_tools']} {m['pgbench_auth']} {m['gw1_discover']} "
                    f"{m.get('lb_nginx', 'NaN')}\n")
    g = r["growth"]
    with open(tmp / "growth.dat", "w") as f:
        f.write("# label current baseline\n")
        for key, label in (("small", f"{g['notes_small']:,} notes"), ("big", f"{g['notes_big']:,} notes")):
            b = "NaN"
            if base and "growth" in base:
                b = base["growth"]["step1_p50_ms"][key]
            f.write(f"\"{label}\" {g['step1_p50_ms'][key]} {b}\n")
    m = r["memory"]
    with open(tmp / "mem.dat", "w") as f:
        f.write("# label MB\n")
        f.write(f"\"idle\" {m['idle']['VmRSS'] / 1024:.2f}\n")
        conns = m["open_connections"].get("conns", m["open_connections"]["Threads"] - 2)
        f.write(f"\"{conns} open conns\" {m['open_connections']['VmRSS'] / 1024:.2f}\n")
        f.write(f"\"after {m['warm_requests'] // 1000}k req\" {m['after_warm_requests']['VmRSS'] / 1024:.2f}\n")
        f.write(f"\"after {m['total_requests'] // 1000}k req\" {m['after_all_requests']['VmRSS'] / 1024:.2f}\n")

    has_base = "1" if base else "0"
    cont = ", \\" if base else ""
    base_flow = '     "" using 1:5 title "1 gateway, 1.0 baseline search" lw 2 pt 4' if base else ""
    base_growth = '     "" using 3 title "1.0 baseline" lc rgb "#d8643b"' if base else ""
    script = f"""
set terminal svg size 1100,800 dynamic font "sans,11" background rgb "white"
set output "{dst}"
set multiplot layout 2,2 title "mcp\\\\_notes bench ({r['mode']}, {r['machine']['cpus']} CPUs, {r['started'][:10]}): medians of {r['profile']['rounds']} alternating rounds"
set grid ytics lc rgb "#dddddd"
set key top left font ",9"
set logscale x 2
set xlabel "concurrent clients"
set style data linespoints
set pointsize 1.2
set title "notes\\\\_delete flows/s (step 1 + step 2, every answer checked)"
set ylabel "flows/s"
set yrange [0:*]
plot "{tmp}/flows.dat" using 1:2 title "pgbench floor (same SQL)" lw 2 pt 7, \\
     "" using 1:3 title "1 gateway" lw 2 pt 5, \\
     "" using 1:4 title "{ngw} gateways + HAProxy" lw 2 pt 9{cont}
{base_flow}
set title "tools/list requests/s"
set ylabel "requests/s"
plot "{tmp}/req.dat" using 1:2 title "nginx static file" lw 2 pt 7, \\
     "" using 1:3 title "1 gateway" lw 2 pt 5, \\
     "" using 1:4 title "{ngw} gateways + HAProxy" lw 2 pt 9, \\
     "" using 1:7 title "nginx via HAProxy" lw 2 pt 8, \\
     "" using 1:5 title "pgbench floor (authenticate)" lw 2 pt 6
unset logscale x
set xlabel ""
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set title "step-1 p50 latency by workspace size (1 client)"
set ylabel "ms"
set logscale y
set yrange [0.1:*]
plot "{tmp}/growth.dat" using 2:xtic(1) title "current" lc rgb "#3b7dd8"{cont}
{base_growth}
unset logscale y
set yrange [0:40]
set title "gateway RSS (target: <= 32 MB at 256 connections)"
set ylabel "MB"
plot "{tmp}/mem.dat" using 2:xtic(1) notitle lc rgb "#3b7dd8", 32 title "32 MB" with lines lw 2 lc rgb "#d83b3b"
unset multiplot
"""
    (tmp / "chart.gp").write_text(script)
    p = subprocess.run(["gnuplot", str(tmp / "chart.gp")], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"gnuplot failed: {p.stderr}\n{script}")
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"chart: {dst}  (baseline {'included' if has_base == '1' else 'not found'})")


if __name__ == "__main__":
    main()
