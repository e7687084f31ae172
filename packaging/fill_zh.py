#!/usr/bin/env python3
"""Fill the unfinished messages of the Chinese .ts file from a glossary (source text -> translation).

    python packaging/i18n.py            # lupdate: new UI strings arrive as type="unfinished"
    python packaging/fill_zh.py         # apply resources/i18n/zh_CN_glossary.json to them
    python packaging/fill_zh.py --missing > new.json   # the unfinished strings the glossary lacks
    python packaging/i18n.py --release # build the .qm

The glossary (``resources/i18n/zh_CN_glossary.json``) holds ``"strings": {source: translation}``
(any context) and ``"contexts": {Context: {source: translation}}`` (overrides for one context);
a plural message (``numerus="yes"``) takes a list of forms. Only messages marked
``type="unfinished"`` are touched: a finished translation in the .ts is never overwritten (fix
those in the .ts or with Qt Linguist). An entry whose placeholders (``{name}``, ``%1``, ``%n``,
HTML tags) differ from its source is refused. The file is edited as text, message by message,
so the rest of lupdate's output stays byte for byte as it was.

Exit code: 0 when no unfinished message is left, 1 when some are (listed on stderr), 2 on a
bad glossary or .ts file.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TS = ROOT / "resources" / "i18n" / "mediadesk_zh_CN.ts"
GLOSSARY = ROOT / "resources" / "i18n" / "zh_CN_glossary.json"

_CONTEXT = re.compile(r"<context>(.*?)</context>", re.S)
_NAME = re.compile(r"<name>(.*?)</name>", re.S)
_MESSAGE = re.compile(r"<message(?:\s[^>]*)?>.*?</message>", re.S)
_UNFINISHED = re.compile(r'<translation type="unfinished"(?:\s*/>|>.*?</translation>)', re.S)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|%L?\d+|%n|</?[a-zA-Z][^>]*>")

Forms = str | list[str]


def placeholders(text: str) -> list[str]:
    return sorted(_PLACEHOLDER.findall(text))


def escape(text: str) -> str:
    """As lupdate writes element text."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;").replace("'", "&apos;"))


class GlossaryError(Exception):
    """The glossary cannot be used (unreadable, wrong shape, or an entry with wrong placeholders)."""


def load_glossary(path: Path) -> tuple[dict[str, Forms], dict[str, dict[str, Forms]]]:
    try:
        doc: Any = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise GlossaryError(f"{path}: cannot read the glossary: {e}") from e
    strings = doc.get("strings", {}) if isinstance(doc, dict) else None
    contexts = doc.get("contexts", {}) if isinstance(doc, dict) else None
    if not isinstance(strings, dict) or not isinstance(contexts, dict):
        raise GlossaryError(f'{path}: expected {{"strings": {{...}}, "contexts": {{...}}}}')
    bad = []
    for where, table in [("strings", strings), *((f"contexts.{c}", t) for c, t in contexts.items())]:
        if not isinstance(table, dict):
            raise GlossaryError(f"{path}: {where} must be an object of source -> translation")
        for src, tr in table.items():
            forms = [tr] if isinstance(tr, str) else tr
            if not isinstance(forms, list) or not forms or not all(isinstance(f, str) and f for f in forms):
                bad.append(f"{where}: {src!r}: the translation must be a non-empty string or list of strings")
                continue
            for f in forms:
                if placeholders(f) != placeholders(src):
                    bad.append(f"{where}: {src!r}: placeholders {placeholders(f)} != source's {placeholders(src)}")
    if bad:
        raise GlossaryError(f"{path}: " + "\n  ".join(["refused entries:", *bad]))
    return strings, contexts


def render(forms: Forms, numerus: bool, indent: str) -> str:
    if not numerus:
        text = forms if isinstance(forms, str) else forms[0]
        return f"<translation>{escape(text)}</translation>"
    items = [forms] if isinstance(forms, str) else forms
    inner = "".join(f"\n{indent}    <numerusform>{escape(f)}</numerusform>" for f in items)
    return f"<translation>{inner}\n{indent}</translation>"


def fill(ts_text: str, strings: dict[str, Forms], contexts: dict[str, dict[str, Forms]],
         ) -> tuple[str, int, list[tuple[str, str, str]]]:
    """Return (new text, how many filled, [(context, source, file) still unfinished])."""
    filled = 0
    left: list[tuple[str, str, str]] = []

    def on_context(cm: re.Match[str]) -> str:
        nonlocal filled
        body = cm.group(1)
        nm = _NAME.search(body)
        ctx = (ET.fromstring(nm.group(0)).text or "") if nm else ""

        def on_message(mm: re.Match[str]) -> str:
            nonlocal filled
            block = mm.group(0)
            um = _UNFINISHED.search(block)
            if um is None:
                return block
            msg = ET.fromstring(block)
            source = msg.findtext("source") or ""
            loc = msg.find("location")
            where = (loc.get("filename") or "") if loc is not None else ""
            forms = contexts.get(ctx, {}).get(source, strings.get(source))
            if forms is None:
                left.append((ctx, source, where))
                return block
            line_start = block.rfind("\n", 0, um.start()) + 1
            indent = block[line_start:um.start()]
            filled += 1
            new = render(forms, msg.get("numerus") == "yes", indent if not indent.strip() else "        ")
            return block[:um.start()] + new + block[um.end():]

        return "<context>" + _MESSAGE.sub(on_message, body) + "</context>"

    return _CONTEXT.sub(on_context, ts_text), filled, left


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--ts", type=Path, default=TS, help="the .ts file to fill (default: %(default)s)")
    ap.add_argument("--glossary", type=Path, default=GLOSSARY, help="source -> translation (default: %(default)s)")
    ap.add_argument("--missing", action="store_true",
                    help="change nothing; print the unfinished strings the glossary lacks, as glossary JSON")
    args = ap.parse_args(argv)
    try:
        strings, contexts = load_glossary(args.glossary)
    except GlossaryError as e:
        print(e, file=sys.stderr)
        return 2
    try:
        text = args.ts.read_text(encoding="utf-8")
        ET.fromstring(text.encode("utf-8"))
    except (OSError, ET.ParseError) as e:
        print(f"{args.ts}: cannot read it as a .ts file: {e}", file=sys.stderr)
        return 2
    new, filled, left = fill(text, strings, contexts)
    if args.missing:
        print(json.dumps({"strings": {src: "" for _, src, _ in left}}, ensure_ascii=False, indent=1))
        return 0 if not left else 1
    if filled:
        ET.fromstring(new.encode("utf-8"))  # still well-formed before it replaces the file
        args.ts.write_text(new, encoding="utf-8")
    print(f"{args.ts.name}: filled {filled} message(s) from {args.glossary.name}; {len(left)} left unfinished")
    for ctx, src, where in left:
        print(f"  unfinished: [{ctx}] {src!r} ({where})", file=sys.stderr)
    return 0 if not left else 1


if __name__ == "__main__":
    raise SystemExit(main())
