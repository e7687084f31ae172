"""Find every task-log phrase the code can write, by reading the source (AST), for the i18n tests.

A task-log line is written by ``ctx.log(msg)`` (a backend's RunContext), ``say(msg)`` / ``log(msg)``
(the callbacks a backend hands to the launcher, cookie jar and self-check), ``self._log(msg)`` (the
launcher), ``store._log(task_id, lane, msg, now)`` / ``append_log(task_id, lane, msg)`` /
``task_log(task_id, msg)`` and any ``log=msg`` keyword (the store's finish/reroute/set_error). Each
message becomes one or more *shapes*: its literal text with ``{}`` where a value goes in
(``f"attempt {n} started"`` -> ``"attempt {} started"``). Conditional pieces (``a if c else b``, ``x +
y``, ``note += ...``) give one shape per variant. A value that is a local variable holding words of its
own (``{note}``, ``{why}``) stays a hole, and what that variable is assigned is reported as a *part*: it
is translated on its own inside the line. The retry policy's ``Outcome(..., why)`` texts are parts too.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOLE = "{}"
#: Where task-log lines are written (login.py talks to the login window, not to a task's log).
SOURCES = (
    *sorted((ROOT / "mediadesk" / "scheduler").glob("*.py")),
    *sorted(p for p in (ROOT / "mediadesk" / "providers").rglob("*.py") if p.name != "login.py"),
    ROOT / "mediadesk" / "store" / "taskstore.py",
    ROOT / "mediadesk" / "core" / "policy.py",
    ROOT / "mediadesk" / "core" / "breaker.py",
)
#: Functions whose ``return ok, words`` words end up in a log line or a capacity notice (the
#: profile self-check's reasons, the health probes' answers).
_WORD_RETURNS = frozenset({"_classify", "probe"})
#: Python's logging module, never a task's log.
_LOGGERS = frozenset({"log", "logging", "logger", "_log_module"})


@dataclass(frozen=True)
class Phrase:
    shape: str
    where: str  # file:line
    part: bool  # a piece of a line (a variable's words), not a whole line


def _product(pieces: list[list[str]]) -> list[str]:
    out = ["".join(p) for p in itertools.product(*pieces)] if pieces else [""]
    return list(dict.fromkeys(out))


def _wordy(expr: ast.expr) -> bool:
    """Written words (a string literal or f-string), possibly inside ``+`` or ``a if c else b``."""
    if isinstance(expr, ast.Constant):
        return isinstance(expr.value, str)
    if isinstance(expr, ast.JoinedStr):
        return True
    if isinstance(expr, ast.BinOp):
        return _wordy(expr.left) or _wordy(expr.right)
    if isinstance(expr, ast.IfExp):
        return _wordy(expr.body) or _wordy(expr.orelse)
    return False


class _Scan:
    def __init__(self, path: Path, tree: ast.Module) -> None:
        self.path = path
        self.rel = str(path.relative_to(ROOT))
        self.found: list[Phrase] = []
        self._visiting: set[tuple[str, int]] = set()
        self._parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(tree):
            for child in ast.iter_child_nodes(node):
                self._parents[child] = node

    def _func(self, node: ast.AST) -> ast.AST | None:
        cur: ast.AST | None = node
        while cur is not None and not isinstance(cur, ast.FunctionDef | ast.AsyncFunctionDef):
            cur = self._parents.get(cur)
        return cur

    def _assigned(self, name: str, func: ast.AST | None) -> tuple[list[ast.expr], list[ast.expr]]:
        """(plain assignments, ``+=`` pieces) of a local ``name``."""
        plain: list[ast.expr] = []
        aug: list[ast.expr] = []
        if func is None:
            return plain, aug
        for node in ast.walk(func):
            if isinstance(node, ast.Assign):
                if any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
                    plain.append(node.value)
                for t in node.targets:  # ``ok, what = True, "words"``
                    if isinstance(t, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                            and len(t.elts) == len(node.value.elts):
                        plain += [v for e, v in zip(t.elts, node.value.elts, strict=True)
                                  if isinstance(e, ast.Name) and e.id == name]
            elif isinstance(node, ast.AnnAssign):
                if isinstance(node.target, ast.Name) and node.target.id == name and node.value is not None:
                    plain.append(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
                aug.append(node.value)
        return plain, aug

    def shapes(self, expr: ast.expr, func: ast.AST | None, *, inline_names: bool = True) -> list[str]:
        """The variants of a message expression (``{}`` where a value goes)."""
        if isinstance(expr, ast.Constant):
            return [expr.value] if isinstance(expr.value, str) else [HOLE]
        if isinstance(expr, ast.JoinedStr):
            pieces: list[list[str]] = []
            for v in expr.values:
                if isinstance(v, ast.Constant):
                    pieces.append([str(v.value)])
                elif isinstance(v, ast.FormattedValue):
                    pieces.append(self._hole(v.value, func))
            return _product(pieces)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Add):
            if not (_wordy(expr.left) or _wordy(expr.right)):
                return [HOLE]  # arithmetic, or a sum of values: one value
            return _product([self.shapes(expr.left, func, inline_names=False),
                             self.shapes(expr.right, func, inline_names=False)])
        if isinstance(expr, ast.IfExp):
            return list(dict.fromkeys(self.shapes(expr.body, func, inline_names=inline_names)
                                      + self.shapes(expr.orelse, func, inline_names=inline_names)))
        if isinstance(expr, ast.Name):
            if not inline_names:
                self._parts(expr, func)
                return [HOLE]
            if (expr.id, id(func)) in self._visiting:
                return [HOLE]
            plain, aug = self._assigned(expr.id, func)
            if not plain:
                return [HOLE]  # a parameter: its callers' messages are scanned where they are written
            base = [s for value in plain for s in self.shapes(value, func)]
            extra = [self.shapes(value, func) for value in aug]
            out: list[str] = []
            for n in range(len(extra) + 1):
                for combo in itertools.combinations(extra, n):
                    out += _product([base, *combo])
            return list(dict.fromkeys(out))
        return [HOLE]

    def _hole(self, value: ast.expr, func: ast.AST | None) -> list[str]:
        """A value inside an f-string: words written right there are part of the line; a local
        variable of words is a hole whose words are reported as parts; anything else is a hole."""
        if isinstance(value, ast.Constant | ast.JoinedStr | ast.IfExp) or (
                isinstance(value, ast.BinOp) and isinstance(value.op, ast.Add)):
            shapes = self.shapes(value, func, inline_names=False)
            if any(s != HOLE for s in shapes):
                return shapes
            return [HOLE]
        if isinstance(value, ast.Name):
            self._parts(value, func)
        return [HOLE]

    def _parts(self, name: ast.Name, func: ast.AST | None) -> None:
        key = (name.id, id(func))
        if key in self._visiting:  # ``why = f"... ({why})"``: its own earlier words are already reported
            return
        self._visiting.add(key)
        try:
            plain, aug = self._assigned(name.id, func)
            for value in [*plain, *aug]:
                for s in self.shapes(value, func):
                    self.add(s, value, part=True)
        finally:
            self._visiting.discard(key)

    def add(self, shape: str, node: ast.AST, *, part: bool) -> None:
        if shape.strip() and shape != HOLE:
            self.found.append(Phrase(shape, f"{self.rel}:{getattr(node, 'lineno', 0)}", part))

    def message_args(self, call: ast.Call) -> Iterator[ast.expr]:
        f = call.func
        args = call.args
        if isinstance(f, ast.Attribute):
            owner = f.value.id if isinstance(f.value, ast.Name) else None
            if f.attr == "log" and owner not in _LOGGERS and args:
                yield args[0]
            elif f.attr == "_log" and args:
                yield args[2] if len(args) >= 3 else args[0]
            elif f.attr == "task_log" and len(args) >= 2:
                yield args[1]
            elif f.attr == "append_log" and len(args) >= 3:
                yield args[2]
            elif f.attr == "_settle_shutdown" and len(args) >= 2:
                yield args[1]
            elif f.attr == "_on_event" and args:  # a capacity notice (shown in the log dock)
                yield args[0]
        elif isinstance(f, ast.Name):
            if f.id in ("say", "log") and args:
                yield args[0]
            elif f.id == "Outcome" and len(args) >= 4:
                yield args[3]
        for kw in call.keywords:
            if kw.arg == "log" or (kw.arg == "why" and isinstance(f, ast.Name) and f.id == "Outcome"):
                yield kw.value

    def part_args(self, call: ast.Call) -> Iterator[ast.expr]:
        """Words that go inside a line: a breaker's reason (``trip(now, why)``, ``_open(now, why)``)."""
        f = call.func
        if isinstance(f, ast.Attribute) and f.attr in ("trip", "_open") and len(call.args) >= 2:
            yield call.args[1]

    def run(self, tree: ast.Module) -> None:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                is_outcome = isinstance(node.func, ast.Name) and node.func.id == "Outcome"
                for arg in self.message_args(node):
                    for s in self.shapes(arg, self._func(node)):
                        self.add(s, arg, part=is_outcome)
                for arg in self.part_args(node):
                    for s in self.shapes(arg, self._func(node)):
                        self.add(s, arg, part=True)
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2:
                func = self._func(node)
                if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef) and func.name in _WORD_RETURNS:
                    for s in self.shapes(node.value.elts[1], func):
                        self.add(s, node, part=True)
            elif isinstance(node, ast.FunctionDef) and node.name == "_settle_shutdown":
                for d in node.args.defaults:
                    for s in self.shapes(d, None):
                        self.add(s, d, part=False)


def scan(paths: tuple[Path, ...] = SOURCES) -> list[Phrase]:
    out: list[Phrase] = []
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        s = _Scan(path, tree)
        s.run(tree)
        out += s.found
    seen: dict[tuple[str, bool], Phrase] = {}
    for p in out:
        seen.setdefault((p.shape, p.part), p)
    return list(seen.values())


if __name__ == "__main__":
    for p in scan():
        print(("  part " if p.part else "  line ") + repr(p.shape), p.where)
