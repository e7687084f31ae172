"""A throw-away PostgreSQL server for tests and benches: initdb + pg_ctl in a private temp dir.

The server binaries come from the distribution's packages (``./dev`` installs ``postgresql``):
``$MEDIADESK_PG_BINDIR``, then ``pg_config --bindir``, then ``/usr/lib/postgresql/<newest>/bin``,
then ``PATH``. PostgreSQL refuses to run as root, so when we are root the server runs as the
``postgres`` user the package creates (the data dir is handed to it); otherwise as ourselves.

It listens on 127.0.0.1 on a free port (and a unix socket inside its own dir), trusts local
connections (a test server holds no data of anyone's) and is stopped (``pg_ctl stop -m immediate``)
and deleted when :meth:`PgServer.stop` runs. Each test gets a fresh database from
:meth:`PgServer.new_database` (CREATE DATABASE: ~0.1 s), so tests never see each other's rows.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from dataclasses import dataclass
from pathlib import Path

from mediadesk.platform.files import current_uid

SUPERUSER = "mediadesk"


class PgUnavailable(RuntimeError):
    """No PostgreSQL server binaries here (the message says how to install them)."""


def find_bindir() -> Path:
    env = os.environ.get("MEDIADESK_PG_BINDIR")
    candidates: list[Path] = [Path(env)] if env else []
    pg_config = shutil.which("pg_config")
    if pg_config:
        try:
            out = subprocess.run([pg_config, "--bindir"], capture_output=True, text=True, timeout=10, check=True)
            candidates.append(Path(out.stdout.strip()))
        except (OSError, subprocess.SubprocessError):
            pass
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name)
                      if Path(p).parent.name.isdigit() else 0, reverse=True)
    candidates += [Path(p) for p in versions]
    initdb = shutil.which("initdb")
    if initdb:
        candidates.append(Path(os.path.realpath(initdb)).parent)
    for c in candidates:
        if (c / "initdb").is_file() and (c / "pg_ctl").is_file():
            return c
    raise PgUnavailable(
        "PostgreSQL server binaries (initdb, pg_ctl) not found: install the distribution's package "
        "(`apt-get install postgresql`; `./dev setup` does it) or set MEDIADESK_PG_BINDIR"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class PgServer:
    bindir: Path
    root: Path
    port: int
    run_as: str | None  # user name when we are root, else None

    @property
    def datadir(self) -> Path:
        return self.root / "data"

    def url(self, dbname: str = "postgres") -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{dbname}"

    def _cmd(self, *args: str) -> list[str]:
        if self.run_as is None:
            return list(args)
        runuser = shutil.which("runuser") or "/sbin/runuser"
        return [runuser, "-u", self.run_as, "--", *args]

    @classmethod
    def start(cls, base: Path | None = None) -> PgServer:
        bindir = find_bindir()
        root = Path(tempfile.mkdtemp(prefix="mediadesk-pg-", dir=base))
        run_as: str | None = None
        if current_uid() == 0:  # root is POSIX-only: so is pwd
            import pwd

            try:
                pw = pwd.getpwnam("postgres")
            except KeyError as exc:
                raise PgUnavailable("running as root needs the 'postgres' user of the postgresql package") from exc
            run_as = "postgres"
            os.chown(root, pw.pw_uid, pw.pw_gid)
        os.chmod(root, 0o700)
        server = cls(bindir=bindir, root=root, port=_free_port(), run_as=run_as)
        env = {**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"}
        subprocess.run(
            server._cmd(str(bindir / "initdb"), "-D", str(server.datadir), "-U", SUPERUSER, "-A", "trust",
                        "-E", "UTF8", "--no-sync"),
            check=True, capture_output=True, timeout=120, env=env,
        )
        for attempt in itertools.count():
            proc = server._pg_ctl_start()
            if proc.returncode == 0:
                return server
            if attempt >= 2:  # a port taken between _free_port and the bind: try another
                log = (root / "server.log").read_text(errors="replace") if (root / "server.log").exists() else ""
                server.stop()
                raise RuntimeError(f"pg_ctl start failed: {proc.stdout}{proc.stderr}\n{log[-2000:]}")
            server.port = _free_port()
        raise AssertionError("unreachable")

    def _pg_ctl_start(self) -> subprocess.CompletedProcess[str]:
        opts = (f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.root} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 "
                "-c shared_buffers=64MB")
        return subprocess.run(
            self._cmd(str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-l", str(self.root / "server.log"),
                      "-o", opts, "-w", "-t", "60", "start"),
            capture_output=True, text=True, timeout=90, env={**os.environ, "LC_ALL": "C.UTF-8", "LANG": "C.UTF-8"},
        )

    def restart(self) -> None:
        """Stop the server as an administrator would (``-m fast``: every client gets AdminShutdown) and
        start it again on the same port."""
        subprocess.run(self._cmd(str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "fast", "-w", "stop"),
                       capture_output=True, timeout=60, check=True)
        proc = self._pg_ctl_start()
        if proc.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {proc.stdout}{proc.stderr}")

    def psql(self, sql: str, dbname: str = "postgres") -> str:
        """Run SQL with the server's own psql (no driver needed); returns its stdout."""
        out = subprocess.run(
            [str(self.bindir / "psql"), "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", self.url(dbname),
             "-c", sql],
            capture_output=True, text=True, timeout=60, check=True,
        )
        return out.stdout

    def new_database(self, prefix: str = "t") -> str:
        """A fresh empty database; returns its URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        self.psql(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.datadir.exists():
            subprocess.run(
                self._cmd(str(self.bindir / "pg_ctl"), "-D", str(self.datadir), "-m", "immediate", "-w", "stop"),
                capture_output=True, timeout=60,
            )
        shutil.rmtree(self.root, ignore_errors=True)
