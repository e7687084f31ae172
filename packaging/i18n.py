#!/usr/bin/env python3
"""Refresh the console's translations: lupdate (sources -> .ts) then lrelease (.ts -> .qm).

    python packaging/i18n.py               # update every .ts from mediadesk/ui/*.py and the catalogs, then .qm
    python packaging/i18n.py --release     # only build .qm from the .ts files (e.g. in packaging)
    python packaging/i18n.py --no-obsolete # also drop strings no longer in the sources

The tools come with PySide6-Essentials (``pyside6-lupdate``/``pyside6-lrelease`` next to the
venv's python). Translators edit ``resources/i18n/mediadesk_<lang>.ts`` (Qt Linguist:
``pyside6-linguist``); the .qm files are build output. Strings are picked up from ``self.tr(...)``
and ``QCoreApplication.translate("Context", ...)`` calls, and ``QT_TRANSLATE_NOOP("Context", ...)``
in the Qt-free catalogs (:data:`CATALOGS`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "mediadesk" / "ui"
#: Qt-free catalogs whose texts the console translates (marked with ``QT_TRANSLATE_NOOP``): the
#: task-log phrases, the plain words for technical error texts and the config error messages.
CATALOGS = (ROOT / "mediadesk" / "core" / "log_lines.py", ROOT / "mediadesk" / "viewmodel" / "plain_errors.py",
            ROOT / "mediadesk" / "config" / "messages.py")
I18N = ROOT / "resources" / "i18n"
LANGUAGES = ("zh_CN",)


def find_tool(name: str) -> str:
    """``pyside6-<name>`` beside the running interpreter (the venv), else on PATH."""
    exe = f"pyside6-{name}"
    for cand in (Path(sys.executable).with_name(exe), Path(sys.executable).with_name(exe + ".exe")):
        if cand.exists():
            return str(cand)
    found = shutil.which(exe)
    if found is None:
        raise SystemExit(f"{exe} not found: install PySide6-Essentials in this environment")
    return found


def ts_path(lang: str) -> Path:
    return I18N / f"mediadesk_{lang}.ts"


def source_files() -> list[Path]:
    """Every file lupdate reads: the console's modules and the catalogs."""
    return [*sorted(SOURCES.rglob("*.py")), *CATALOGS]


def update(no_obsolete: bool) -> None:
    sources = [str(p.relative_to(ROOT)) for p in source_files()]
    I18N.mkdir(parents=True, exist_ok=True)
    for lang in LANGUAGES:
        cmd = [find_tool("lupdate"), *sources, "-ts", str(ts_path(lang).relative_to(ROOT))]
        if no_obsolete:
            cmd.insert(1, "-no-obsolete")
        subprocess.run(cmd, check=True, cwd=ROOT)


def release() -> None:
    for lang in LANGUAGES:
        ts = ts_path(lang)
        if not ts.exists():
            raise SystemExit(f"{ts} is missing: run without --release first")
        subprocess.run([find_tool("lrelease"), str(ts), "-qm", str(ts.with_suffix(".qm"))], check=True, cwd=ROOT)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--release", action="store_true", help="only build .qm files from the .ts files")
    ap.add_argument("--no-obsolete", action="store_true", help="drop strings that left the sources")
    args = ap.parse_args(argv)
    if not args.release:
        update(args.no_obsolete)
    release()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
