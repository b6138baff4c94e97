"""Print start-up and streaming figures for askcli, measured side by side in one run.

Ratios matter more than milliseconds on a shared machine: each figure is the median of
several runs, next to a baseline taken in the same run.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASKCLI = Path(sys.executable).with_name("askcli")
RUNS = 7
STREAM_CALLS = 500


def median_seconds(command: list[str], stdin: bytes = b"", runs: int = RUNS) -> float:
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(command, input=stdin, capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    library = str(ROOT / "examples" / "library.json")
    python = median_seconds([sys.executable, "-c", "pass"])
    imports = median_seconds([sys.executable, "-c", "import click, pydantic"])
    one = median_seconds([str(ASKCLI), "ask", library], b"2\n")
    print(f"start-up, median of {RUNS} runs:")
    print(f"  python -c pass                 {python * 1000:7.1f} ms   1.00x")
    print(
        f"  python -c 'import click, pydantic' {imports * 1000:5.1f} ms   {imports / python:.2f}x"
    )
    print(f"  askcli ask library.json (1 answer) {one * 1000:5.1f} ms   {one / python:.2f}x")

    call = json.loads((ROOT / "examples" / "library.json").read_text())
    lines = "".join(json.dumps(call) + "\n2\n" for _ in range(STREAM_CALLS)).encode()
    with tempfile.TemporaryDirectory():
        stream = median_seconds([str(ASKCLI), "ask", "-"], lines, runs=3)
    per_call = (stream - one) / (STREAM_CALLS - 1)
    print(f"stream of {STREAM_CALLS} calls with answers on one stdin, median of 3 runs:")
    print(
        f"  total {stream:.2f} s, {per_call * 1000:.2f} ms per extra call, "
        f"{(STREAM_CALLS - 1) / max(stream - one, 1e-9):.0f} calls/s after start-up"
    )


if __name__ == "__main__":
    main()
