"""Where the store lives: ``--db`` / ``db_url`` parsing, a password never shown, and what a user is told
when a PostgreSQL database cannot be opened or is lost while running (exit 2, no traceback)."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from mediadesk.cli import main as cli_main
from mediadesk.config.location import PgLocation, SqliteLocation, mask_url, parse_location
from mediadesk.config.model import ConfigError, parse_config
from mediadesk.config.workspace import Workspace
from mediadesk.store import NewTask, open_store
from mediadesk.store.errors import DatabaseServerLostError, StorageError
from mediadesk.store.open_errors import DatabaseServerError
from tests.pgserver import PgServer

SECRET = "s3cr3t-pw"


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nobody listens once it is closed


def test_parse_location_tells_files_from_postgresql_urls(tmp_path: Path) -> None:
    assert parse_location(str(tmp_path / "x.db")) == SqliteLocation(tmp_path / "x.db")
    assert parse_location("postgresql://u@h/db") == PgLocation("postgresql://u@h/db")
    assert parse_location("POSTGRES://u@h:6000/db").dialect == "postgresql"
    loc = parse_location("postgresql://u@h:6000/db")
    assert isinstance(loc, PgLocation) and loc.host_port == "h:6000" and loc.dbname == "db"
    assert isinstance(parse_location("mysql://u@h/db"), SqliteLocation)  # (a file name, as --db always was)


def test_a_password_in_the_url_is_never_shown() -> None:
    loc = PgLocation(f"postgresql://op:{SECRET}@db.example:5432/queue")
    assert loc.display == "postgresql://op:***@db.example:5432/queue"
    for shown in (str(loc), repr(loc), loc.display, repr(Workspace(Path("/d"), Path("/d/x.db"), loc))):
        assert SECRET not in shown
    assert mask_url("postgresql://op@h/db") == "postgresql://op@h/db"
    assert loc.password == SECRET  # (libpq gets it; nothing else)


def test_db_url_in_the_config_is_strict_and_names_the_key() -> None:
    assert parse_config({"db_url": "postgresql://op@h/db"}).db_url == "postgresql://op@h/db"
    with pytest.raises(ConfigError) as err:
        parse_config({"db_url": f"mysql://op:{SECRET}@h/db"}, source="c.toml")
    assert "c.toml: db_url: must be a PostgreSQL URL" in str(err.value) and SECRET not in str(err.value)
    with pytest.raises(ConfigError, match="db_url: expected a string"):
        parse_config({"db_url": 5432}, source="c.toml")


def test_workspace_takes_db_then_db_url_then_the_data_dir_file(tmp_path: Path) -> None:
    ws = Workspace.resolve(data_dir=tmp_path / "d", db_url="postgresql://op@h/db")
    assert ws.location == PgLocation("postgresql://op@h/db")
    ws = Workspace.resolve(data_dir=tmp_path / "d", db=str(tmp_path / "x.db"), db_url="postgresql://op@h/db")
    assert ws.location == SqliteLocation(tmp_path / "x.db")  # --db wins
    assert Workspace.resolve(data_dir=tmp_path / "d").location == SqliteLocation(tmp_path / "d" / "mediadesk.db")


def test_unreachable_server_at_open_is_a_typed_error_naming_host_and_port() -> None:
    port = closed_port()
    with pytest.raises(DatabaseServerError) as err:
        open_store(f"postgresql://op:{SECRET}@127.0.0.1:{port}/queue")
    msg = str(err.value)
    assert err.value.kind == "unreachable" and f"127.0.0.1:{port} is unreachable" in msg
    assert "check it is running" in msg and SECRET not in msg


def test_every_db_command_reports_an_unreachable_server_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"postgresql://op:{SECRET}@127.0.0.1:{closed_port()}/queue"
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'db_url = "{url}"\n[[profiles]]\nname = "p"\nkind = "api"\n'
                   'base_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n', encoding="utf-8")
    batch = tmp_path / "b.jsonl"
    batch.write_text('{"id": "t1", "profile": "p", "prompt": "x"}\n', encoding="utf-8")
    data = str(tmp_path / "data")
    argv_url = url.replace(f":{SECRET}@", "@")  # a password on the command line is refused (ps shows it)
    commands = [
        ["export", "--db", argv_url, "--data-dir", data],
        ["cancel", "t1", "--db", argv_url, "--data-dir", data],
        ["exceptions", "list", "--db", argv_url, "--data-dir", data],
        ["exceptions", "resolve", "t1", "drop", "--config", str(cfg), "--data-dir", data],  # db_url of the config
        ["run", str(batch), "--config", str(cfg), "--data-dir", data],  # db_url of the config
    ]
    for argv in commands:
        assert cli_main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "is unreachable" in err and "127.0.0.1:" in err, (argv, err)
        assert SECRET not in err and "Traceback" not in err, (argv, err)


def test_missing_database_and_unknown_user_say_what_to_do(pg_server: PgServer) -> None:
    with pytest.raises(DatabaseServerError) as err:
        open_store(pg_server.url("no_such_db"))
    assert err.value.kind == "no_database" and "'no_such_db' does not exist" in str(err.value)
    assert "createdb" in str(err.value)
    url = pg_server.url("postgres").replace("mediadesk@", f"nobody:{SECRET}@")
    with pytest.raises(DatabaseServerError) as err:
        open_store(url)
    assert err.value.kind == "auth" and "nobody" in str(err.value) and SECRET not in str(err.value)


def test_a_lost_connection_while_running_is_a_storage_error(pg_server: PgServer, pg_url: str) -> None:
    s = open_store(pg_url)
    s.add_tasks([NewTask("a", "p", "api", "x")])
    pid = s._raw.info.backend_pid  # (the PostgreSQL store's psycopg connection)
    pg_server.psql(f"SELECT pg_terminate_backend({pid})")
    with pytest.raises(StorageError) as err:
        s.add_tasks([NewTask("b", "p", "api", "y")])
    assert isinstance(err.value, DatabaseServerLostError) and err.value.kind == "unreachable"
    assert f"the database server at {PgLocation(pg_url).host_port} is unreachable" in str(err.value)
    assert "check it is running" in str(err.value)
    s.close()
