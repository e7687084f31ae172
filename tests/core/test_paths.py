"""A task id never names a folder outside ``evidence/`` (ids come from operators' batch files)."""

from __future__ import annotations

from pathlib import PurePosixPath

from mediadesk.core.paths import evidence_name


def test_plain_ids_are_kept() -> None:
    for tid in ("t1", "batch-7.row_3", "a" * 100):
        assert evidence_name(tid) == tid


def test_hostile_ids_stay_one_folder_inside_evidence() -> None:
    hostile = ["..", ".", "../../etc", "a/../../x", "/abs/path", "-rf", "con\x00", "名字", "a b", "x" * 500, "", "..."]
    names = [evidence_name(t) for t in hostile]
    for tid, name in zip(hostile, names, strict=True):
        root = PurePosixPath("/ws/evidence")
        path = root / name
        assert path.parent == root and "/" not in name and name not in (".", ".."), (tid, name)
        assert not name.startswith("-") and 0 < len(name) <= 80, (tid, name)
    assert len(set(names)) == len(names)  # no two ids share a folder


def test_similar_unsafe_ids_do_not_collide() -> None:
    assert evidence_name("a/b") != evidence_name("a:b") != evidence_name("a b")
