"""The watched intake folder (``[intake] watch``): a batch file dropped there is submitted once complete.

The scheduler owns one :class:`WatchFolder` and starts it when the config names a folder; it runs on
the scheduler's loop (the console's and ``mediadesk serve``'s alike). Every ``poll_s`` seconds the
folder is listed (``os.scandir``): a file is taken once its size and modification time agree across
two looks and no program has it open for writing (:func:`~mediadesk.platform.files.being_written`).
Taking it: its rows are read by :func:`~mediadesk.core.batch.parse_batch_file` (whatever formats that
reads), with the options of a side file ``<stem>.json`` (``profile``, ``template``, ``sheet``) passed
on where it takes them; they go in through the scheduler's :class:`~mediadesk.scheduler.intake.Intake`;
then the file moves to ``done/`` beside ``<name>.report.txt`` (rows submitted, row errors with their
lines, the encoding, when), or to ``failed/`` when no row could go in.

Never twice: each file is recorded by its content hash (sha256) and name in the intake ledger
(``<data_dir>/intake-ledger.json``, one MediaDesk per data dir) BEFORE its tasks go in, and marked
submitted after. A file whose hash is marked is moved to ``done/`` with an "already submitted" report
and not submitted again; one that is only recorded (a crash between the record and the move) is
submitted again, which adds nothing twice: task ids are derived from the rows, and ids already in
the queue are left untouched.

Folders are created private (0700); a symbolic link as the watched folder, ``done/``, ``failed/``, a
dropped file, a side file or the ledger is refused with a line in the log, never followed.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import hashlib
import inspect
import json
import logging
import os
import stat
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mediadesk.core.batch import BatchFileError, ParsedBatch, RowError, parse_batch_file
from mediadesk.files.safe import (
    O_NOFOLLOW,
    UnsafePathError,
    create_private_file,
    ensure_private_dir,
    write_private_file,
)
from mediadesk.platform.files import being_written, open_binary_readonly
from mediadesk.scheduler.intake import Intake
from mediadesk.store.errors import StorageError

__all__ = ["DONE", "FAILED", "LEDGER_NAME", "Ledger", "WatchFolder"]

log = logging.getLogger(__name__)

DONE = "done"
FAILED = "failed"
#: The intake ledger, in the data dir: the files taken, by content hash.
LEDGER_NAME = "intake-ledger.json"
#: Keys a side file ``<stem>.json`` may hold; each is passed to parse_batch_file where it takes it.
SIDE_KEYS = ("profile", "template", "sheet")
#: Names that are no batch: side files, and what browsers and editors write while a file is on its way.
_NOT_BATCHES = (".json", ".part", ".partial", ".crdownload", ".download", ".tmp")
_O_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)
_HASH_CHUNK = 1 << 20
_ROW_ERRORS_SHOWN = 1000


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S %z", time.localtime(ts))


class Ledger:
    """The files taken, by content hash: ``recorded`` before their tasks go in, ``submitted`` after.
    Kept as one private JSON file, rewritten atomically at each change (a link there is refused)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._files: dict[str, dict[str, Any]] = self._load()

    def _load(self) -> dict[str, dict[str, Any]]:
        try:
            fd = open_binary_readonly(self.path, O_NOFOLLOW | _O_NONBLOCK)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise UnsafePathError.symlink(self.path) from None
            raise
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise UnsafePathError(self.path, "is not a regular file")
            raw = fh.read()
        try:
            files = json.loads(raw.decode("utf-8")).get("files", {})
        except (ValueError, AttributeError):
            # unreadable: start afresh; a file taken again adds nothing twice (ids come from the rows)
            log.warning("intake ledger %s is unreadable: starting a new one", self.path)
            return {}
        return {k: v for k, v in files.items() if isinstance(v, dict)} if isinstance(files, dict) else {}

    def get(self, sha256: str) -> dict[str, Any] | None:
        return self._files.get(sha256)

    def record(self, sha256: str, name: str, now: float) -> None:
        self._files[sha256] = {"name": name, "state": "recorded", "at": now}
        self._save()

    def mark_submitted(self, sha256: str, added: int, existing: int, now: float) -> None:
        self._files[sha256] = {**self._files[sha256], "state": "submitted", "at": now, "added": added,
                               "existing": existing}
        self._save()

    def forget(self, sha256: str) -> None:
        if self._files.pop(sha256, None) is not None:
            self._save()

    def _save(self) -> None:
        write_private_file(self.path, json.dumps({"files": self._files}, indent=1, sort_keys=True), "intake ledger")


@dataclass
class _Look:
    """What a file looked like at the last look, and the wait last said for it."""

    size: int
    mtime_ns: int
    said: str = ""


class WatchFolder:
    """Watches ``folder`` every ``poll_s`` seconds and takes each complete batch file into ``intake``.

    ``templates``: the workspace's templates folder (a row's or the side file's ``template``);
    ``profiles`` and ``max_prompt_chars``: read at each file (the rows are checked against them);
    ``notice``: each line for the operator (the console's log and status, ``mediadesk serve``'s
    output). :attr:`taken` is the name of the last file taken."""

    def __init__(
        self, folder: Path, *, ledger: Path, templates: Path, intake: Intake, profiles: Callable[[], Collection[str]],
        max_prompt_chars: Callable[[], int], notice: Callable[[str], None], poll_s: float = 2.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.folder = Path(folder)
        self._templates = templates
        self.poll_s = poll_s
        self.taken: str | None = None
        self._ledger_path = ledger
        self._ledger: Ledger | None = None
        self._intake = intake
        self._profiles = profiles
        self._max_prompt_chars = max_prompt_chars
        self._notice = notice
        self._clock = clock
        self._looks: dict[str, _Look] = {}
        #: What was refused and already said (a link, an unusable folder): said once, not every look.
        self._refused: dict[str, str] = {}
        self._task: asyncio.Task[None] | None = None
        #: "watching" was said (again after a refusal of the folders).
        self._watching = False

    # ------------------------------------------------------------------ life
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self.run(), name="scheduler:watch-folder")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def run(self) -> None:
        while True:
            try:
                await self.look()
            except StorageError as exc:  # the scheduler has halted (and said why): nothing can go in now
                self._notice(f"stopped watching {self.folder}: the database failed ({exc})")
                return
            except Exception:
                log.exception("watched folder %s: a look failed", self.folder)
            await asyncio.sleep(self.poll_s)  # waits for the next look at the folder

    # ------------------------------------------------------------------ one look
    async def look(self) -> None:
        """One look at the folder: note what changed, take what is complete."""
        if not self._folders_ready():
            return
        with os.scandir(self.folder) as it:
            entries = sorted(it, key=lambda e: e.name)
        listed = {e.name for e in entries}
        present = set()
        for entry in entries:
            name = entry.name
            if name.startswith((".", "~$")) or name.lower().endswith(_NOT_BATCHES):
                continue
            if entry.is_symlink():
                self._refuse(name, f"refused {name} in {self.folder}: a symbolic link is never followed; "
                                   "remove it and drop the file itself")
                continue
            if entry.is_dir(follow_symlinks=False):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            if not stat.S_ISREG(st.st_mode):
                self._refuse(name, f"refused {name} in {self.folder}: not a regular file")
                continue
            present.add(name)
            self._refused.pop(name, None)
            if not self._stable(name, st):
                self._say(name, "growing", f"waiting for {name} to stop growing")
                continue
            if await asyncio.to_thread(being_written, self.folder / name):
                self._say(name, "open", f"waiting for {name} to be closed by its writer")
                continue
            await self._take(name, st)
        for gone in set(self._looks) - present:
            del self._looks[gone]
        for gone in [n for n in self._refused if n not in listed and not n.startswith("/")]:
            del self._refused[gone]

    def _folders_ready(self) -> bool:
        """The watched folder, ``done/`` and ``failed/`` exist, private, none of them a link."""
        try:
            ensure_private_dir(self.folder, user_chosen=True, what="watched folder")
            for sub in (DONE, FAILED):
                ensure_private_dir(self.folder / sub, what=f"{sub}/ folder")
            if self._ledger is None:
                self._ledger = Ledger(self._ledger_path)
        except (UnsafePathError, OSError) as exc:
            self._refuse("/folders", f"watched folder not used: {exc}")
            return False
        if self._refused.pop("/folders", None) is not None or not self._watching:
            self._watching = True
            self._notice(f"watching {self.folder} for batch files")
        return True

    def _stable(self, name: str, st: os.stat_result) -> bool:
        """Same size and modification time as at the last look (a first look is never stable)."""
        prev = self._looks.get(name)
        if prev is not None and (prev.size, prev.mtime_ns) == (st.st_size, st.st_mtime_ns):
            return True
        self._looks[name] = _Look(st.st_size, st.st_mtime_ns, prev.said if prev is not None else "")
        return False

    def _say(self, name: str, wait: str, text: str) -> None:
        look = self._looks[name]
        if look.said != wait:
            look.said = wait
            self._notice(text)

    def _refuse(self, key: str, text: str) -> None:
        if self._refused.get(key) != text:
            self._refused[key] = text
            self._notice(text)

    # ------------------------------------------------------------------ taking a file
    async def _take(self, name: str, st: os.stat_result) -> None:
        path = self.folder / name
        ledger = self._ledger
        assert ledger is not None  # _folders_ready made it
        try:
            sha256 = await asyncio.to_thread(_sha256, path, st)
        except (OSError, UnsafePathError) as exc:
            self._looks.pop(name, None)  # changed or replaced while it was read: look again
            log.info("watched folder: %s changed while it was read (%s): looking again", name, exc)
            return
        now = self._clock()
        seen = ledger.get(sha256)
        if seen is not None and seen.get("state") == "submitted":
            when = _when(float(seen.get("at", now)))
            report = [f"already submitted on {when} (as {seen.get('name', name)}): not submitted again"]
            moved = self._file_away(name, DONE, sha256, report, now)
            self._notice(f"{name}: already submitted on {when}, not submitted again; {moved}")
            return
        kwargs, notes = self._side_options(name)
        try:
            parsed = await asyncio.to_thread(
                parse_batch_file, path, known_profiles=list(self._profiles()),
                max_prompt_chars=self._max_prompt_chars(), templates_dir=self._templates, **kwargs)
        except BatchFileError as exc:
            moved = self._file_away(name, FAILED, sha256, [f"not read: {exc}", *notes], now)
            self._notice(f"{name}: not read ({exc}); {moved}")
            return
        if not self._unchanged(name, st):
            return
        if not parsed.rows:
            report = [*_read_lines(parsed), "no row could go in", *notes, *_error_lines(parsed.errors)]
            moved = self._file_away(name, FAILED, sha256, report, now)
            self._notice(f"{name}: no row could go in ({len(parsed.errors)} row errors); {moved}")
            return
        if seen is None:
            ledger.record(sha256, name, now)  # before any task goes in: a crash from here on is seen
        try:
            done = await self._intake.submit_rows_async(parsed.rows, name)
        except StorageError:
            raise  # the scheduler halted; the file stays, recorded: the next start submits it (nothing twice)
        except ValueError as exc:  # refused whole (a queue cap, an unset API key, an unknown profile)
            ledger.forget(sha256)
            report = [*_read_lines(parsed), f"refused whole, nothing was submitted: {exc}", *notes,
                      *_error_lines(parsed.errors)]
            moved = self._file_away(name, FAILED, sha256, report, now)
            self._notice(f"{name}: refused whole ({exc}); {moved}")
            return
        added, existing = len(done.result.added), len(done.result.existing)
        ledger.mark_submitted(sha256, added, existing, self._clock())
        again = " (taken again after an interruption)" if seen is not None else ""
        report = [*_read_lines(parsed),
                  f"rows submitted: {len(parsed.rows)} ({added} new tasks, {existing} already in the queue){again}",
                  f"row errors: {len(parsed.errors)}", *notes, *_error_lines(parsed.errors)]
        moved = self._file_away(name, DONE, sha256, report, now)
        self.taken = name
        self._notice(f"took {name}: {len(parsed.rows)} rows submitted ({added} new tasks), "
                     f"{len(parsed.errors)} row errors; {moved}")

    def _unchanged(self, name: str, st: os.stat_result) -> bool:
        """Still the file hashed (a writer may have come back while it was read); else looked at again."""
        try:
            now = os.lstat(self.folder / name)
        except OSError:
            now = None
        if now is not None and stat.S_ISREG(now.st_mode) and (now.st_size, now.st_mtime_ns) == (
                st.st_size, st.st_mtime_ns):
            return True
        self._looks.pop(name, None)
        return False

    def _side_options(self, name: str) -> tuple[dict[str, Any], list[str]]:
        """The options of ``<stem>.json`` beside the batch: those parse_batch_file takes, and a note for
        each it does not (ignored)."""
        side = self.folder / f"{Path(name).stem}.json"
        if not os.path.lexists(side):
            return {}, []
        try:
            fd = open_binary_readonly(side, O_NOFOLLOW | _O_NONBLOCK)
        except OSError as exc:
            why = "a symbolic link, never followed" if exc.errno == errno.ELOOP else (exc.strerror or str(exc))
            return {}, [f"options {side.name}: not read ({why})"]
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(64 * 1024) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
        try:
            options = json.loads(raw.decode("utf-8-sig"))
        except ValueError as exc:
            return {}, [f"options {side.name}: not read (not a JSON object: {exc})"]
        if not isinstance(options, dict):
            return {}, [f"options {side.name}: not read (not a JSON object)"]
        takes = inspect.signature(parse_batch_file).parameters
        kwargs: dict[str, Any] = {}
        notes: list[str] = []
        for key, value in options.items():
            if key not in SIDE_KEYS:
                notes.append(f"options {side.name}: unknown key {key!r} ignored (known: {', '.join(SIDE_KEYS)})")
            elif key not in takes:
                notes.append(f"options {side.name}: {key} = {value!r} ignored (this MediaDesk reads no {key} "
                             "for a batch file)")
            else:
                kwargs[key] = value
                notes.append(f"options {side.name}: {key} = {value!r}")
        return kwargs, notes

    def _file_away(self, name: str, sub: str, sha256: str, lines: list[str], now: float) -> str:
        """Move ``name`` (and its side file) into ``sub``/ beside its report; a name already there gets
        the time added. A folder that became a link meanwhile is refused: the file stays. Returns what
        was done, for the operator."""
        dest_dir = self.folder / sub
        try:
            ensure_private_dir(dest_dir, what=f"{sub}/ folder")
        except (UnsafePathError, OSError) as exc:
            self._refuse("/folders", f"watched folder not used: {exc}")
            return f"it stays in {self.folder}"
        base = name
        n = 1
        while os.path.lexists(dest_dir / base) or os.path.lexists(dest_dir / f"{base}.report.txt"):
            stem, suffix = Path(name).stem, Path(name).suffix
            base = f"{stem}.{time.strftime('%Y%m%d-%H%M%S', time.localtime(now))}{'' if n == 1 else f'-{n}'}{suffix}"
            n += 1
        head = [f"file: {name}", f"sha256: {sha256}", f"when: {_when(now)}"]
        fd = create_private_file(dest_dir / f"{base}.report.txt")
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write("\n".join([*head, *lines]) + "\n")
        os.rename(self.folder / name, dest_dir / base)
        side = self.folder / f"{Path(name).stem}.json"
        side_dest = dest_dir / f"{Path(base).stem}.json"
        if os.path.isfile(side) and not os.path.islink(side) and not os.path.lexists(side_dest):
            with contextlib.suppress(OSError):
                os.rename(side, side_dest)
        self._looks.pop(name, None)
        return f"moved to {sub}/" + (f" as {base}" if base != name else "")


def _sha256(path: Path, st: os.stat_result) -> str:
    """The content hash of ``path``, read without following a link; OSError when it is not the file
    last looked at (replaced, grown or shrunk meanwhile)."""
    fd = open_binary_readonly(path, O_NOFOLLOW | _O_NONBLOCK)
    digest = hashlib.sha256()
    with os.fdopen(fd, "rb") as fh:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_size, now.st_mtime_ns) != (st.st_size, st.st_mtime_ns):
            raise OSError(errno.EAGAIN, "the file changed")
        while chunk := fh.read(_HASH_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _read_lines(parsed: ParsedBatch) -> list[str]:
    return [f"format: {parsed.format}", f"encoding: {parsed.encoding or '-'}"]


def _error_lines(errors: list[RowError]) -> list[str]:
    out = [f"line {e.line}: {e.message}" + (f" | {e.excerpt}" if e.excerpt else "")
           for e in errors[:_ROW_ERRORS_SHOWN]]
    if len(errors) > _ROW_ERRORS_SHOWN:
        out.append(f"... and {len(errors) - _ROW_ERRORS_SHOWN} more row errors")
    return out
