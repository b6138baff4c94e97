"""What one ``askcli ask`` of one question meets: askcli's modules imported, its functions
run and its classes met, counted in a child process that answers examples/bare.json.

A newcomer reading the path of one question reads these; the counts go in
docs/development.md ("What one askcli ask meets") before and after a change of the house.
Run by ``make bench``; alone: ``python bench/ask_path.py [--list]``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CALL = ROOT / "examples" / "bare.json"

PROBE = r"""
import json, sys, threading
root = sys.argv[1]
functions = set()
classes = set()

def seen(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    if not code.co_filename.startswith(root):
        return
    functions.add((code.co_filename, code.co_firstlineno, code.co_qualname))
    parts = code.co_qualname.split(".")
    if len(parts) > 1 and "<locals>" not in parts[:-1]:
        classes.add((code.co_filename, parts[-2]))

sys.setprofile(seen)
threading.setprofile(seen)
from askcli.cli import main
sys.argv = ["askcli", "ask", sys.argv[2]]
try:
    main()
except SystemExit:
    pass
finally:
    sys.setprofile(None)
    import askcli.errors as errors
    error_names = {name for name in dir(errors) if not name.startswith("_")}
    modules = sorted(m for m in sys.modules if m == "askcli" or m.startswith("askcli."))
    met = sorted({name for _, name in classes})
    defined = sorted(
        {
            f"{m}.{name}"
            for m in modules
            for name, value in vars(sys.modules[m]).items()
            if isinstance(value, type) and value.__module__ == m
        }
    )
    print(json.dumps({
        "modules": modules,
        "functions": len(functions),
        "classes": met,
        "public": [c for c in met if not c.startswith("_") and c not in error_names],
        "defined": defined,
        "defined_public": [
            c for c in defined
            if not c.rsplit(".", 1)[1].startswith("_") and not c.startswith("askcli.errors.")
        ],
    }), file=sys.__stderr__)
"""


def measure() -> dict[str, object]:
    """The counts for one answered question, from a child process."""
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, str(ROOT / "askcli"), str(CALL)],
        input="1\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    found: dict[str, object] = json.loads(proc.stderr.strip().splitlines()[-1])
    return found


def main() -> None:
    found = measure()
    modules = found["modules"]
    classes = found["classes"]
    public = found["public"]
    assert isinstance(modules, list) and isinstance(classes, list) and isinstance(public, list)
    print("What one askcli ask of one question meets (examples/bare.json, answered 1):")
    print(f"  askcli modules imported {len(modules)}")
    print(f"  askcli functions run    {found['functions']}")
    defined = found["defined"]
    defined_public = found["defined_public"]
    assert isinstance(defined, list) and isinstance(defined_public, list)
    print(f"  askcli classes run      {len(classes)} ({len(public)} public, not errors)")
    print(
        f"  askcli classes defined  {len(defined)} in those modules"
        f" ({len(defined_public)} public, not errors)"
    )
    if "--list" in sys.argv[1:]:
        print("  modules: " + " ".join(modules))
        print("  classes: " + " ".join(classes))


if __name__ == "__main__":
    main()
