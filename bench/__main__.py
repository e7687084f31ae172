"""Run the benchmarks: ``python -m bench [NAME|all] [options]`` (``./dev bench``); NAME is a key of BENCHES."""

from __future__ import annotations

import importlib
import sys

BENCHES = {
    "api": "bench.api_overhead",
    "web": "bench.web_overhead",
    "webdone": "bench.web_done",
    "websteps": "bench.web_steps",
    "webparts": "bench.web_parts",
    "markdown": "bench.markdown",
    "seed": "bench.seed_batch",
    "gui": "bench.gui_responsiveness",
    "storm": "bench.storm",
    "faults": "bench.faults",
    "team": "bench.team",
    "remote": "bench.remote_load",
}


def main() -> None:
    args = sys.argv[1:]
    name = args[0] if args and not args[0].startswith("-") else "all"
    rest = args[1:] if args and not args[0].startswith("-") else args
    names = list(BENCHES) if name == "all" else [name]
    for n in names:
        if n not in BENCHES:
            sys.exit(f"unknown bench {n!r}; choose from {', '.join(BENCHES)} or all")
        try:
            mod = importlib.import_module(BENCHES[n])
        except ModuleNotFoundError as exc:
            print(f"[bench {n}] not available: {exc}")
            continue
        print(f"=== bench {n} ===", flush=True)
        mod.main(rest if name != "all" else [])


if __name__ == "__main__":
    main()
