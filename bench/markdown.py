"""The two ways the web lane reads an answer, side by side on a corpus of Markdown answers: from the site's own
stream (the adapter's ``[stream]`` table, the named decoder ``deepseek``) and from the page's answer element
converted back to Markdown (``answer_format = "markdown"``, the same adapter without ``[stream]``).

The corpus (``bench/corpus/markdown/*.md``, one answer per file, its final newline not part of it) is Markdown
as a model writes it: bold and italics, nested lists, fenced code with its language and indented lines,
inline code, aligned tables, links, LaTeX, Chinese punctuation, headings, blockquotes, rules. The chat
simulator (its own process, the ``deepseek`` persona: DeepSeek's SSE, the answer rendered to HTML) is told
through its admin API (``POST /admin/answers``) to give these answers, in order, to the next generations;
every answer then goes through the real web lane (scheduler, store, lane, one owned Chromium, one account)
once per reader. Each stored answer is compared with the corpus text: byte for byte, and with whitespace
runs made one space; per feature, an answer "loses" it when the feature's marks in the corpus text
(:data:`FEATURES`) are not all in the stored answer. Goal: 100 % byte for byte from the stream.

    python -m bench markdown [--run-s 0.5] [--only NAME,...] [--show 3]
"""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
import os
import re
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bench.common import ROOT, sim_process, table
from bench.web_overhead import _http
from mediadesk.config.model import parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.providers.web.login import login_with_form
from mediadesk.scheduler import Scheduler
from mediadesk.store import TaskReader

CORPUS = ROOT / "bench" / "corpus" / "markdown"
ACCOUNT = "bench-md"
#: The adapter of the simulator's DeepSeek-like page; the stream reader's adds :data:`STREAM_TABLE`.
SITE_TOML = """
url = "{base}/chat"
login_url = "{base}/login"
logged_in = ".avatar"
prompt = "textarea"
send = "button.send"
answer = ".msg.assistant .content"
busy = ".stop"
new_chat = "button.new-chat"
error = ".msg.error"
answer_format = "markdown"
settle_ms = 300
max_run_s = 120
"""
STREAM_TABLE = '\n[stream]\ndecoder = "deepseek"\n'
#: Reader -> whether its adapter reads the stream.
READERS = {"stream": True, "page": False}


def corpus(directory: Path = CORPUS) -> list[tuple[str, str]]:
    """(name, answer) of every ``*.md`` file, in name order; a file's final newline is not part of its answer."""
    return [(p.stem, p.read_text(encoding="utf-8").removesuffix("\n")) for p in sorted(directory.glob("*.md"))]


# --- features and their marks ----------------------------------------------------------------------

_FENCE = re.compile(r"^([ \t]*)(`{3,})([^\n`]*)\n(.*?)^\1\2[ \t]*$", re.M | re.S)
_DISPLAY_MATH = re.compile(r"\$\$.+?\$\$", re.S)
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d+[.)]) \S")
_TABLE_RULE = re.compile(r"^\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$")
_ALIGN_KIND = {":--": "L", ":-:": "C", "--:": "R"}


def _prose(text: str) -> str:
    """The text without its fenced code blocks (their lines are code, not Markdown)."""
    return _FENCE.sub("", text)


def _lines(pattern: str, *, prose: bool = True) -> Callable[[str], list[str]]:
    rx = re.compile(pattern, re.M)
    return lambda text: [m.group(0) for m in rx.finditer(_prose(text) if prose else text)]


def _code_blocks(text: str) -> list[str]:
    return [f"```{m.group(3).strip()}\n{_dedent(m.group(4), m.group(1))}" for m in _FENCE.finditer(text)
            if m.group(3).strip()]  # fmt: skip


def _dedent(body: str, indent: str) -> str:
    return "".join(ln.removeprefix(indent) for ln in body.splitlines(keepends=True))


def _indented_code(text: str) -> list[str]:
    """Code lines indented inside their block (leading spaces or tabs beyond the fence's own indentation)."""
    return [ln for m in _FENCE.finditer(text) for ln in _dedent(m.group(4), m.group(1)).splitlines()
            if ln[:1] in (" ", "\t") and ln.strip()]  # fmt: skip


def _list_levels(text: str) -> list[tuple[int, str]]:
    """(level, line) of each list item: 1 at the left margin, 2 under it, 3 under that."""
    out: list[tuple[int, str]] = []
    stack: list[int] = []
    for line in _prose(text).splitlines():
        m = _LIST_ITEM.match(line)
        if m is None:
            if line.strip() and not line[:1].isspace():
                stack = []  # a paragraph at the margin ends the list
            continue
        indent = len(m.group(1).expandtabs(4))
        while stack and stack[-1] > indent:
            stack.pop()
        if not stack or stack[-1] < indent:
            stack.append(indent)
        out.append((len(stack), line))
    return out


def _table_alignment(kind: str) -> Callable[[str], list[str]]:
    """Marks of an alignment (``:--``, ``:-:``, ``--:``): the alignment pattern (e.g. ``L C R``) of each table
    rule that has a column aligned so."""

    def marks(text: str) -> list[str]:
        out = []
        for line in _prose(text).splitlines():
            if "|" in line and _TABLE_RULE.match(line.strip()):
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                pattern = [_ALIGN_KIND.get(c[0] + "-" + c[-1], "-") if len(c) > 1 else "-" for c in cells]
                if _ALIGN_KIND[kind] in pattern:
                    out.append(" ".join(pattern))
        return out

    return marks


def _latex_inline(text: str) -> list[str]:
    return re.findall(r"(?<![$\\])\$(?=[^\s$])[^$\n]+?(?<=[^\s\\])\$(?!\$)", _DISPLAY_MATH.sub("", _prose(text)))


#: Feature -> its marks in a text (a list: a feature is in a text when it has a mark; an answer read back
#: keeps the feature when every mark of the original, counted, is in it).
FEATURES: dict[str, Callable[[str], list[str]]] = {
    "bold": _lines(r"\*\*(?=[^\s*])[^*\n]+?(?<=[^\s*])\*\*"),
    "italics": _lines(r"(?<!\*)\*(?=[^\s*])[^*\n]+?(?<=[^\s*])\*(?!\*)"),
    "unordered list": _lines(r"^[-*+] \S.*$"),
    "ordered list": _lines(r"^\d+[.)] \S.*$"),
    "nested list, 2 levels": lambda text: [ln for level, ln in _list_levels(text) if level == 2],
    "nested list, 3 levels": lambda text: [ln for level, ln in _list_levels(text) if level == 3],
    "code block with a language": _code_blocks,
    "indented code in a block": _indented_code,
    "inline code": _lines(r"(?<!`)`[^`\n]+`(?!`)"),
    "table": _lines(r"^[ \t]*\|.*\|[ \t]*$"),
    "table :--": _table_alignment(":--"),
    "table :-:": _table_alignment(":-:"),
    "table --:": _table_alignment("--:"),
    "link": _lines(r"\[[^\]\n]+\]\([^)\s]+\)"),
    "LaTeX $inline$": _latex_inline,
    "LaTeX $$display$$": lambda text: _DISPLAY_MATH.findall(_prose(text)),
    "Chinese punctuation": _lines(r"[，。：；！？“”《》]"),
    "heading": _lines(r"^#{1,6} \S.*$"),
    "blockquote": _lines(r"^>.*$"),
    "horizontal rule": _lines(r"^(?:-{3,}|\*{3,}|_{3,})[ \t]*$"),
}


def features(text: str) -> set[str]:
    """The features of :data:`FEATURES` that ``text`` has."""
    return {name for name, marks in FEATURES.items() if marks(text)}


def lost(original: str, read: str) -> set[str]:
    """The features of ``original`` whose marks are not all in ``read`` (its answer as a reader stored it)."""
    return {name for name, marks in FEATURES.items() if (want := Counter(marks(original)))
            and want - Counter(marks(read))}  # fmt: skip


def normalised(text: str) -> str:
    """``text`` with every whitespace run made one space, no leading or trailing whitespace."""
    return " ".join(text.split())


# --- the run --------------------------------------------------------------------------------------


@dataclass
class Read:
    """One corpus answer as one reader stored it."""

    name: str
    original: str
    stored: str | None  # None: the task did not succeed
    source: str  # "stream" | "page" (which the lane says it read) | "" (no answer)
    warnings: int
    error: str | None = None
    lost: set[str] = field(default_factory=set)

    @property
    def exact(self) -> bool:
        return self.stored == self.original

    @property
    def same_words(self) -> bool:
        return self.stored is not None and normalised(self.stored) == normalised(self.original)


async def run_reader(base: str, root: Path, reader: str, items: list[tuple[str, str]]) -> list[Read]:
    """Every corpus answer once through the web lane with the reader's adapter; the simulator is told to give
    them in order (``POST /admin/answers``), and each task's answer is matched by its prompt in its record."""
    sites = root / "sites"
    sites.mkdir(parents=True, exist_ok=True)
    toml = SITE_TOML.format(base=base) + (STREAM_TABLE if READERS[reader] else "")
    (sites / f"md-{reader}.toml").write_text(toml, encoding="utf-8")
    cfg = parse_config({
        "heartbeat": {"interval_s": 15, "stale_after_s": 90},
        "browser": {"recycle_after": 1000, "sites_dir": str(sites)},
        "profiles": [{"name": "md", "kind": "web", "site": f"md-{reader}"}],
        "accounts": [{"name": ACCOUNT, "profile": "md"}],
    })  # fmt: skip
    ws = Workspace.resolve(data_dir=root / "data").ensure()
    if not (root / "logged-in").exists():
        await login_with_form(cfg, ws, ACCOUNT, f"{base}/login", fields={"#account": ACCOUNT, "#password": "x"},
                              submit="button.login", logged_in=".avatar")  # fmt: skip
        (root / "logged-in").touch()
    prompts = {f"{reader}-{i:02d}": f"{reader} {i:02d}: {name}" for i, (name, _) in enumerate(items)}
    async with Scheduler(cfg, ws) as s:
        async with asyncio.timeout(120):
            await s.wait_ready()
        await asyncio.to_thread(_http, f"{base}/stats/reset", b"")
        body = json.dumps({"answers": [text for _, text in items]}).encode()
        queued = await asyncio.to_thread(_http, f"{base}/admin/answers", body)
        assert queued == {"queued": len(items)}, queued
        s.intake.submit([s.intake.new_task(tid, "md", prompt) for tid, prompt in prompts.items()])
        await s.wait_idle(poll_s=0.05)
    stats = await asyncio.to_thread(_http, f"{base}/stats")
    given = {g["prompt"]: g["answer"] for g in stats["generations"] if g["status"] == "completed"}
    reader_db = TaskReader(ws.db_path)
    try:
        recs = {r.task_id: r for r in reader_db.iter_tasks()}
        out = []
        for (tid, prompt), (name, text) in zip(prompts.items(), items, strict=True):
            rec = recs[tid]
            if prompt in given and given[prompt] != text:
                raise RuntimeError(f"the simulator gave {prompt!r} another answer than {name}.md: the queue is off")
            lines = [ln.message for ln in reader_db.logs(tid)]
            ok = rec.state == "success" and rec.result is not None
            source = ("stream" if any(ln.startswith("answer read from the site's stream") for ln in lines)
                      else "page") if ok else ""  # fmt: skip
            read = Read(name, text, rec.result if ok else None, source,
                        sum(ln.startswith("warning:") for ln in lines), None if ok else rec.error_message)
            read.lost = lost(text, read.stored) if read.stored is not None else features(text)
            out.append(read)
    finally:
        reader_db.close()
    return out


def _rate(n: int, total: int) -> str:
    return f"{n}/{total} ({100 * n / total:.0f} %)" if total else "-"


def report(results: dict[str, list[Read]], items: list[tuple[str, str]], run_s: float, show: int) -> None:
    one, five, _ = os.getloadavg()
    print(f"\n{len(items)} Markdown answers (bench/corpus/markdown), each through the web lane once per reader: "
          f"simulator persona deepseek, {run_s:g} s per answer, 1 account, 1 Chromium; {os.cpu_count()} cores, "
          f"load average {one:.1f} / {five:.1f} (1 / 5 min)")
    rows: list[tuple[str, ...]] = [("reader", "byte for byte", "whitespace-normalised", "read from",
                                    "failed tasks", "cross-check warnings")]
    for reader, reads in results.items():
        sources = Counter(r.source for r in reads if r.source)
        rows.append((reader, _rate(sum(r.exact for r in reads), len(reads)),
                     _rate(sum(r.same_words for r in reads), len(reads)),
                     ", ".join(f"{k} {v}" for k, v in sorted(sources.items())),
                     str(sum(r.stored is None for r in reads)), str(sum(r.warnings for r in reads))))  # fmt: skip
    print(table(rows))
    having = {name: [n for n, text in items if name in features(text)] for name in FEATURES}
    print("\nPer feature: answers that have it, and in how many of them each reader lost it (the feature's marks "
          "in the corpus text not all in the stored answer)")
    rows = [("feature", "answers", *(f"{reader} lost" for reader in results))]
    for name, names in having.items():
        rows.append((name, str(len(names)),
                     *(str(sum(name in r.lost for r in reads)) for reads in results.values())))  # fmt: skip
    print(table(rows))
    for reader, reads in results.items():
        wrong = [r for r in reads if not r.exact]
        for r in wrong[:show]:
            print(f"\n--- {reader} reader, {r.name}.md: " + (f"failed: {r.error}" if r.stored is None else
                                                          f"lost {', '.join(sorted(r.lost)) or 'no feature'}"))
            if r.stored is not None:
                diff = difflib.unified_diff(r.original.splitlines(), r.stored.splitlines(), "corpus", "stored",
                                            lineterm="", n=0)  # fmt: skip
                print("\n".join(list(diff)[2:14]))
    exact = {reader: sum(r.exact for r in reads) for reader, reads in results.items()}
    if "stream" in exact:
        met = exact["stream"] == len(items)
        print(f"\ngoal: 100 % byte for byte from the stream ({'met' if met else 'NOT met'} in this run)")


async def main_async(args: argparse.Namespace) -> None:
    items = corpus()
    if args.only:
        wanted = set(args.only.split(","))
        items = [(n, t) for n, t in items if n in wanted]
    if not items:
        raise SystemExit("no corpus answer to run")
    results: dict[str, list[Read]] = {}
    t0 = time.monotonic()
    # fixed_run_s * time_scale = the seconds of one answer's generation (its thinking and its answer)
    with sim_process("web", "--time-scale", "0.01", "--fixed-run-s", f"{args.run_s * 100:g}", "--seed", "1",
                     "--answer-style", "markdown", "--persona", "deepseek") as chat_url, \
            tempfile.TemporaryDirectory() as tmp:  # fmt: skip
        base = chat_url.rsplit("/", 1)[0]
        for reader in READERS:
            results[reader] = await run_reader(base, Path(tmp), reader, items)
    report(results, items, args.run_s, args.show)
    print(f"bench time: {time.monotonic() - t0:.0f} s")


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="bench markdown")
    p.add_argument("--run-s", type=float, default=0.5, help="seconds of one answer's generation at the simulator")
    p.add_argument("--only", default="", help="run only these corpus answers (file names without .md, comma-separated)")
    p.add_argument("--show", type=int, default=3, help="per reader, show how this many wrong answers differ")
    asyncio.run(main_async(p.parse_args(argv)))


if __name__ == "__main__":
    main()
