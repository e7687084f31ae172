"""The Store protocol is what the scheduler and the faces call on a store: no more, no less; both
back-ends implement it; open_store is the one way in and the SQLite store does not import PostgreSQL's."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from mediadesk.store import Store, TaskStore, open_store
from mediadesk.store.pgstore import PgTaskStore
from mediadesk.store.protocol import Store as ProtocolStore

ROOT = Path(__file__).resolve().parents[2]
#: The store's users: everything outside the store package (tests excluded: they also probe internals).
USERS = [p for p in [*(ROOT / "mediadesk").rglob("*.py"), *(ROOT / "bench").rglob("*.py")]
         if "mediadesk/store" not in p.as_posix()]
#: How its users name a store: ``store``, ``self._store``, ``self.store``, ``sched.store``...
STORE_NAMES = frozenset({"store", "_store"})


def protocol_members() -> set[str]:
    return {n for n in vars(ProtocolStore) if not n.startswith("_")} - {"register"}


def used_members() -> dict[str, set[str]]:
    """{member: files} of ``<something named store>.member`` in the store's users."""
    out: dict[str, set[str]] = {}
    for path in USERS:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Attribute):
                continue
            base = node.value
            if isinstance(base, ast.Call):  # a store handed over as a getter: ``self._store().member``
                base = base.func
            name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None
            if name in STORE_NAMES and not node.attr.startswith("__"):
                out.setdefault(node.attr, set()).add(path.relative_to(ROOT).as_posix())
    return out


def test_the_protocol_is_what_the_users_call() -> None:
    used = used_members()
    assert set(used) - protocol_members() == set(), {m: used[m] for m in set(used) - protocol_members()}
    assert protocol_members() - set(used) == set(), "members nobody outside the store calls"


def test_both_back_ends_implement_it(tmp_path: Path) -> None:
    for cls in (TaskStore, PgTaskStore):
        missing = {m for m in protocol_members() if not callable(getattr(cls, m, None))}
        assert missing == set(), (cls, missing)
    s = open_store(tmp_path / "t.db")
    try:
        assert isinstance(s, Store) and type(s) is TaskStore
    finally:
        s.close()


def test_the_sqlite_store_does_not_import_the_postgresql_one() -> None:
    code = ("import sys, mediadesk.store.taskstore, mediadesk.store.open; "
            "print(sorted(m for m in ('mediadesk.store.pgstore', 'psycopg') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                         check=True)
    assert out.stdout.strip() == "[]"
    tree = ast.parse((ROOT / "mediadesk/store/taskstore.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)} | {
        a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {m for m in imported if m and ("pgstore" in m or "psycopg" in m or m.endswith("store.open"))}
