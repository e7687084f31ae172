"""``mediadesk serve``: the scheduler headless, steered over the local HTTP API until Ctrl-C / SIGTERM.

Prints one line ``listening on URL`` once the API answers (scripts wait for it; with ``--port 0`` it
names the port the system chose), then the scheduler's notices on stderr (a breaker opened, a file of the
watched folder taken) and warnings. Exit codes: 0 stopped by a signal,
2 usage / config / database error (the API cannot start: no token, a binding refused, a port taken),
also when a storage fault stopped dispatch.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from mediadesk.config.model import ConfigError, load_config
from mediadesk.config.template import default_config_path, no_config_message
from mediadesk.config.workspace import Workspace
from mediadesk.core.text import printable
from mediadesk.platform.signals import install_stop_handlers
from mediadesk.scheduler import Scheduler
from mediadesk.scheduler.events import Notice, StorageFailed


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser], db_help: str) -> None:
    s = sub.add_parser("serve", help="run the scheduler headless behind the local HTTP API (docs/remote-api.md)")
    s.add_argument("--config", type=Path, help="config TOML (default: <data dir>/config.toml)")
    s.add_argument("--db", help=db_help)
    s.add_argument("--data-dir", type=Path, help="workspace folder (default: config data_dir or platform dir)")
    s.add_argument("--host", help="address to listen on (default: [remote] host, 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default: [remote] port, 8765; 0: any free port)")
    s.add_argument("--allow-remote", action="store_true",
                   help="listen beyond loopback without TLS (the token travels in clear: trusted networks only)")


def main(args: argparse.Namespace) -> int:
    return asyncio.run(serve(args))


async def serve(args: argparse.Namespace) -> int:
    from mediadesk.remote import RemoteServer  # the web stack only for this command

    config_path = args.config
    if config_path is None:
        config_path = default_config_path(args.data_dir)
        if not config_path.is_file():
            raise ConfigError(no_config_message(config_path))
    config = load_config(config_path)
    ws = Workspace.resolve(data_dir=args.data_dir or config.data_dir, db=args.db, db_url=config.db_url)
    sched = Scheduler(config, ws)
    server = RemoteServer(sched, host=args.host, port=args.port, allow_remote=True if args.allow_remote else None)
    stop = asyncio.Event()
    failed: list[StorageFailed] = []

    def on_event(ev: object) -> None:
        if isinstance(ev, Notice):  # as `mediadesk run` says them
            print(f"[{time.strftime('%H:%M:%S')}] {printable(ev.message, multiline=False)}", file=sys.stderr,
                  flush=True)
        if isinstance(ev, StorageFailed):
            failed.append(ev)
            stop.set()

    uninstall = install_stop_handlers(asyncio.get_running_loop(), lambda _signum: stop.set())
    unsubscribe = sched.bus.subscribe(on_event)
    try:
        await sched.start()
        try:
            await server.start()
            print(f"listening on {server.url}", flush=True)
            if kept := [lane.name for lane in sched.lanes if lane.paused_kept]:
                print(f"paused in an earlier session (the pause is kept): {', '.join(kept)}; resume with "
                      "POST /v1/lanes/resume", file=sys.stderr, flush=True)
            await stop.wait()
        finally:
            await server.stop()
    finally:
        unsubscribe()
        await sched.stop()
        uninstall()
    if failed:
        print(f"mediadesk: {failed[0].message}", file=sys.stderr)
        return 2
    return 0
