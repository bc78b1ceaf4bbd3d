#!/usr/bin/env python3
"""Compare the timing model's loaded latency with published bandwidth-latency curves.

    tools/loaded_latency_check.py [--machine machines/cxl-1to4.toml]

The timing model (docs/timing.md) gives each node's memory controller an M/M/1 queue: a line
costs the unloaded latency L plus W = S * rho / (1 - rho), with S = line_size / bandwidth_gbps
and rho the controller's utilisation. At a throughput of B GB/s, rho = B / bandwidth_gbps. This
script takes L and bandwidth_gbps from a machine file (by default the cxl-1to4 preset; the four
cxl-1toK presets share them), evaluates the model at each bandwidth point of a published curve,
and prints the two side by side with the relative error (model - published) / published:

* "model" is the machine's own idle latency plus W: what a simulation would charge;
* "model, published idle" is the curve's own idle latency plus W: the queueing term alone,
  with the base-latency difference between the machine and the measured system taken out.

The published curves (the Mess framework's bandwidth-latency curves, Esmaili-Dokht et al.,
"A Mess of Memory System Benchmarking, Simulation and Application Profiling", MICRO 2024,
arXiv 2405.10170; data files of github.com/bsc-mem/Mess-simulator, Standalone/data/, columns
MB/s and CPU cycles) are copied below, point for point, without the repeated points of each
saturated plateau (one kept, the first of the plateau as the file lists it) and without the
idle-end points whose measured bandwidth is negative (measurement noise at zero load):

* CXL: Standalone/data/cxl/bwlat_100.txt (100 % reads) and bwlat_66.txt (66 % reads), a
  PCIe 5.0 x8 CXL memory expander "generated through detailed simulations using Micron
  technology" (Standalone/data/README.md); cycles at 2.1 GHz (Standalone/cxl-exp.sh:
  frequencyCurve=2.1, onChipLatency=0, so the latency is the device side, no core-to-controller
  part).
* DDR5: Standalone/data/graviton3-ddr5/bwlat_100.txt (100 % reads), measured on an Amazon
  Graviton3 with 8 channels of DDR5-4800, the same channels as the presets' Sapphire Rapids
  socket; cycles at 2.6 GHz (Standalone/cxl-exp.sh: frequencyCurve=2.6 for graviton3-ddr5).

Nothing here is fitted: the model's numbers are the machine file's. Python 3.11, standard
library only.
"""
from __future__ import annotations

import argparse
import sys
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

# (MB/s, cycles) pairs as the files list them, from the highest load to the lowest.
CXL_READ_100 = [
    (26758.8658, 1285.0047), (26758.7707, 1282.3587), (26654.0917, 285.4656), (25588.02614, 259.1358),
    (24604.50655, 250.6728), (23693.98525, 245.7252), (22848.06222, 242.4492), (22060.55295, 240.2589),
    (21325.30726, 238.8288), (18279.95695, 235.4142), (15995.59028, 234.1059), (14218.73004, 231.8169),
    (12797.18317, 230.6745), (8532.084207, 228.6543), (6399.298967, 227.7996), (4266.356429, 226.9764),
    (3199.825676, 226.5165), (2559.889352, 226.2750), (1279.972979, 225.7962), (639.993248, 225.6072),
    (319.998551, 225.5841),
]
CXL_READ_66 = [
    (39208.98180, 1008.4410), (39210.56857, 986.0655), (37621.63249, 311.3712), (35533.05143, 290.2347),
    (33662.52704, 280.7385), (31981.89735, 274.2222), (30459.31003, 269.3250), (29075.96202, 265.6815),
    (27812.09177, 262.5756), (26654.18549, 259.9947), (25588.02249, 257.9493), (24604.32082, 256.0530),
    (23693.84507, 254.4129), (22847.84216, 252.7203), (22060.42252, 251.7060), (21325.47360, 250.4439),
    (18279.89970, 245.8449), (15995.52137, 242.5311), (14218.76607, 239.5386), (12797.20874, 237.6801),
    (8532.101262, 232.7955), (6399.311759, 230.6283), (4266.364958, 228.5304), (3199.832108, 227.4657),
    (2559.893060, 226.8231), (1279.973904, 226.0398), (639.993796, 225.6282), (319.998609, 225.6093),
]
DDR5_READ_100 = [
    (283196.6122, 862.0963), (284524.2327, 796.6751), (284106.1638, 739.1964), (282431.0646, 689.8842),
    (279987.5941, 648.9627), (277264.4114, 616.6561), (275544.9802, 593.5495), (274336.7675, 587.9695),
    (273806.9736, 582.4273), (273455.1233, 576.6931), (273470.2671, 571.4237), (274430.9869, 580.4417),
    (275019.1040, 582.6473), (273881.9652, 573.4155), (273071.7988, 564.6116), (271314.1650, 553.3749),
    (267919.9932, 537.3639), (263331.9353, 518.3973), (257842.0379, 497.7563), (252685.5131, 478.5016),
    (247742.4237, 460.7143), (240758.7854, 443.2863), (231262.2198, 426.7915), (219740.8102, 412.7449),
    (205734.7913, 399.0234), (186691.5844, 383.6761), (165020.8844, 368.3343), (142676.2938, 355.1524),
    (121451.2151, 344.9322), (103633.9703, 338.9551), (90110.39525, 335.1776), (77883.17977, 332.0309),
    (67088.38473, 329.6023), (57699.53647, 327.8155), (49171.80560, 326.2451), (38501.26435, 324.1438),
    (28368.85076, 322.2134), (18790.58942, 320.3790), (10115.09641, 318.7382), (3392.924003, 317.4848),
]

CURVES = [
    # (title, points, GHz of the cycles, which node of the machine it is compared with)
    ("CXL expander, 100 % reads (Mess, data/cxl/bwlat_100.txt)", CXL_READ_100, 2.1, "cxl"),
    ("CXL expander, 66 % reads (Mess, data/cxl/bwlat_66.txt)", CXL_READ_66, 2.1, "cxl"),
    ("8 x DDR5-4800, 100 % reads (Mess, data/graviton3-ddr5/bwlat_100.txt)", DDR5_READ_100, 2.6, "dram"),
]


def mm1_wait_ns(throughput_gbps: float, bandwidth_gbps: float, line: int) -> float | None:
    """The model's mean queueing delay at a throughput, ns; None at or past saturation."""
    rho = throughput_gbps / bandwidth_gbps
    if rho >= 1.0:
        return None
    return line / bandwidth_gbps * rho / (1.0 - rho)


def node_of(machine: dict, kind: str) -> tuple[float, float]:
    """(idle latency from the first CPU node, bandwidth) of the first node of a memory kind."""
    home = next(i for i, n in enumerate(machine["nodes"]) if n["cpus"] > 0)
    for i, n in enumerate(machine["nodes"]):
        if n.get("memory", "dram") == kind and n["memory_mib"] > 0:
            return machine["latency_ns"][home][i], n["bandwidth_gbps"]
    raise SystemExit(f"loaded_latency_check: the machine has no {kind} node")


def rel(model: float | None, published: float) -> str:
    return "saturated" if model is None else f"{(model - published) / published:+.1%}"


def show(title: str, points: list[tuple[float, float]], ghz: float, idle_ns: float, bw: float, line: int) -> None:
    published_idle = min(c for _, c in points) / ghz
    print(f"\n{title}")
    print(f"  machine: idle {idle_ns:.1f} ns, bandwidth {bw:g} GB/s, S = {line / bw:.3f} ns; curve's idle {published_idle:.1f} ns")
    print(f"  {'GB/s':>7} {'rho':>6} {'published':>9} {'queue':>7} {'model W':>8} {'model':>8} {'error':>9} {'model, pub. idle':>16} {'error':>9}")
    for mbps, cycles in points:
        gbps = mbps / 1000.0
        pub = cycles / ghz
        w = mm1_wait_ns(gbps, bw, line)
        model = None if w is None else idle_ns + w
        model_pi = None if w is None else published_idle + w
        fmt = lambda v: "inf" if v is None else f"{v:.1f}"  # noqa: E731
        print(
            f"  {gbps:7.2f} {gbps / bw:6.3f} {pub:9.1f} {pub - published_idle:7.1f} {fmt(w):>8} {fmt(model):>8} "
            f"{rel(model, pub):>9} {fmt(model_pi):>16} {rel(model_pi, pub):>9}"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--machine", default=str(REPO / "machines" / "cxl-1to4.toml"), help="machine file (default: %(default)s)")
    args = ap.parse_args(argv)
    machine = tomllib.loads(Path(args.machine).read_text(encoding="utf-8"))
    line = machine["line_size"]
    print(f"machine {machine['name']}: M/M/1 at each published point; error = (model - published) / published")
    for title, points, ghz, kind in CURVES:
        idle_ns, bw = node_of(machine, kind)
        show(title, points, ghz, idle_ns, bw, line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
