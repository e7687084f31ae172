"""Every user-visible console string has a Chinese translation, in the .ts and in the shipped .qm.

pyside6-lupdate runs over the console's sources (the same files as ``packaging/i18n.py``) into a
temporary copy of ``resources/i18n/mediadesk_zh_CN.ts``, so a string added to the code since the
.ts was last refreshed shows up as unfinished here. The fix for a failure: add the strings to
``resources/i18n/zh_CN_glossary.json`` and run ``packaging/i18n.py``, ``packaging/fill_zh.py``,
``packaging/i18n.py --release`` (see fill_zh.py), or translate them in Qt Linguist.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest
from PySide6.QtCore import QTranslator

from tests.support import require

ROOT = Path(__file__).resolve().parents[2]
TS = ROOT / "resources" / "i18n" / "mediadesk_zh_CN.ts"
QM = TS.with_suffix(".qm")


def _i18n() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mediadesk_packaging_i18n", ROOT / "packaging" / "i18n.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _lupdate() -> str:
    exe = "pyside6-lupdate"
    for cand in (Path(sys.executable).with_name(exe), Path(sys.executable).with_name(exe + ".exe")):
        if cand.exists():
            return str(cand)
    found = shutil.which(exe)
    require(found is not None, "pyside6-lupdate is not installed (it comes with PySide6-Essentials)")
    assert found is not None
    return found


@dataclass(frozen=True)
class Message:
    context: str
    source: str
    files: tuple[str, ...]
    numerus: bool
    forms: tuple[str, ...]  # the translation text, or the numerus forms
    unfinished: bool

    @property
    def translated(self) -> bool:
        return not self.unfinished and bool(self.forms) and all(self.forms)

    def describe(self) -> str:
        return f"[{self.context}] {self.source!r} in {', '.join(self.files) or '?'}"


def current_messages(sources: list[Path], ts: Path, tmp: Path) -> list[Message]:
    """lupdate ``sources`` into a copy of ``ts``; its live messages (obsolete/vanished ones left out)."""
    copy = tmp / ts.name
    shutil.copyfile(ts, copy)
    run = subprocess.run([_lupdate(), *map(str, sources), "-ts", str(copy)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, f"pyside6-lupdate failed:\n{run.stdout}\n{run.stderr}"
    out: list[Message] = []
    for ctx in ET.parse(copy).getroot().iter("context"):
        name = ctx.findtext("name") or ""
        for msg in ctx.iter("message"):
            tr = msg.find("translation")
            kind = tr.get("type") if tr is not None else None
            if kind in ("obsolete", "vanished"):
                continue
            numerus = msg.get("numerus") == "yes"
            if tr is None:
                forms: tuple[str, ...] = ()
            elif numerus:
                forms = tuple(f.text or "" for f in tr.findall("numerusform"))
            else:
                forms = (tr.text or "",)
            files = []
            for loc in msg.findall("location"):
                path = (copy.parent / (loc.get("filename") or "")).resolve()
                files.append(str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path))
            out.append(Message(name, msg.findtext("source") or "", tuple(dict.fromkeys(files)), numerus, forms,
                               kind == "unfinished"))
    return out


@pytest.fixture(scope="module")
def messages(tmp_path_factory: pytest.TempPathFactory) -> list[Message]:
    """The same sources as packaging/i18n.py scans (its SOURCES folder and its CATALOGS)."""
    sources = _i18n().source_files()
    assert sources, "packaging/i18n.py scans no source file"
    return current_messages(sources, TS, tmp_path_factory.mktemp("ts"))


def test_every_console_string_is_translated_in_the_ts(messages: list[Message]) -> None:
    assert len(messages) > 100, "lupdate found almost no strings: is it reading the sources?"
    missing = [m.describe() for m in messages if not m.translated]
    assert not missing, (
        f"{len(missing)} console string(s) without a Chinese translation (add them to "
        "resources/i18n/zh_CN_glossary.json, then run packaging/i18n.py, packaging/fill_zh.py, "
        "packaging/i18n.py --release):\n  " + "\n  ".join(missing))


def test_the_shipped_qm_carries_every_translation(messages: list[Message]) -> None:
    """The .qm is build output: one rebuilt before the last .ts change misses strings at run time."""
    translator = QTranslator()
    assert translator.load(str(QM)), f"{QM} does not load"
    stale = [m.describe() for m in messages if m.translated
             and translator.translate(m.context, m.source, None, 1 if m.numerus else -1) == ""]
    assert not stale, (f"{len(stale)} translation(s) missing from {QM.name} (run packaging/i18n.py --release):\n  "
                       + "\n  ".join(stale))


def test_the_check_reports_a_new_untranslated_string_with_its_file(tmp_path: Path) -> None:
    """The checker itself: a string added to a source file after the .ts was made is caught and named."""
    src = tmp_path / "new_panel.py"
    src.write_text(
        "from PySide6.QtWidgets import QWidget\n\n\n"
        "class NewPanel(QWidget):\n"
        "    def label(self) -> str:\n"
        "        return self.tr('A string nobody translated yet')\n",
        encoding="utf-8")
    ts_dir = tmp_path / "ts"
    ts_dir.mkdir()
    found = current_messages([src], TS, ts_dir)
    new = [m for m in found if m.context == "NewPanel"]
    assert [(m.source, m.translated) for m in new] == [("A string nobody translated yet", False)]
    assert new[0].files == (str(src.resolve()),), new[0].files
    assert "new_panel.py" in new[0].describe()
