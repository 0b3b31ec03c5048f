"""``dixit-ai serve`` refuses a bot delay that would stall the bots, and a ``--db`` file that is
not a tables database, before anything starts: status 2, one line naming the problem, no file
left behind."""

from __future__ import annotations

import math
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the [web] extra")
uvicorn = pytest.importorskip("uvicorn", reason="the [web] extra")

from dixit_ai.cli import main  # noqa: E402
from dixit_ai.web.app import create_app  # noqa: E402
from dixit_ai.web.config import BOT_DELAY_RANGE, check_bot_delay  # noqa: E402
from dixit_ai.web.manager import TableManager  # noqa: E402
from dixit_ai.web.store import (  # noqa: E402
    NotATablesDatabase,
    Store,
    check_database,
    ensure_free,
)
from tests.web.servers import free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def _no_server(*args: object, **kwargs: object) -> None:
    raise AssertionError("the server was started")


def _serve(db: Path, *extra: str) -> list[str]:
    return ["serve", "--db", str(db), "--port", str(free_port()), "--bot", "random", *extra]


# ---------------------------------------------------------------------- --bot-delay


@pytest.mark.parametrize("delay", ["nan", "inf", "-inf", "1e300", "1e400", "-1", "60.5"])
def test_serve_refuses_a_bot_delay_that_is_not_finite_or_out_of_range(
        delay: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(uvicorn, "run", _no_server)
    status = main(_serve(tmp_path / "a.db", f"--bot-delay={delay}"))
    err = capsys.readouterr().err
    assert status == 2, err
    assert "dixit-ai serve: error: --bot-delay must be a number of seconds from 0 to 60" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # no database, no lock file


@pytest.mark.parametrize("delay", ["0", "60"])
def test_serve_takes_a_bot_delay_at_the_ends_of_its_range(
        delay: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[float] = []

    def record(app: object, **kwargs: object) -> None:
        started.append(float(delay))

    monkeypatch.setattr(uvicorn, "run", record)
    assert main(_serve(tmp_path / "a.db", f"--bot-delay={delay}")) == 0
    assert started == [float(delay)]


@pytest.mark.parametrize("delay", [math.nan, math.inf, -0.5, 61, 10**400, True, "1"])
def test_the_app_and_the_manager_refuse_a_bad_bot_delay(delay: object, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="bot_delay must be a number of seconds from 0 to 60"):
        create_app(tmp_path / "a.db", bot_delay=delay)  # type: ignore[arg-type]
    store = Store(tmp_path / "b.db")
    try:
        with pytest.raises(ValueError, match="bot_delay must be"):
            TableManager(store, bot_delay=delay)  # type: ignore[arg-type]
    finally:
        store.close()
    assert not (tmp_path / "a.db").exists()


def test_the_bot_delay_range_is_checked_inclusively() -> None:
    low, high = BOT_DELAY_RANGE
    assert (low, high) == (0.0, 60.0)
    assert check_bot_delay(low) == 0.0 and check_bot_delay(high) == 60.0
    assert check_bot_delay(0.6) == 0.6


# ---------------------------------------------------------------------- --db not a database


def _other_database(path: Path) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE contacts (name TEXT)")
    db.close()


def test_serve_refuses_a_file_that_is_not_a_database_before_starting(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(uvicorn, "run", _no_server)
    fake = tmp_path / "fake.sqlite3"
    fake.write_text("notadb\n")
    status = main(_serve(fake))
    out, err = capsys.readouterr()
    assert status == 2, err
    assert err.strip() == (f"dixit-ai serve: error: {fake} is not a dixit-ai tables database "
                           "(SQLite: file is not a database); give another --db, or move the "
                           "file away to start a new database there")
    assert "dixit-ai tables on" not in out  # refused before the banner
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake.sqlite3"]  # no lock file
    assert fake.read_text() == "notadb\n"


def test_a_db_path_with_a_tilde_is_checked_where_it_is_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """'~/fake.sqlite3' (quoted, so the shell left the tilde) was checked in the home folder
    but opened as a relative path named '~'."""
    monkeypatch.setattr(uvicorn, "run", _no_server)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fake.sqlite3").write_text("notadb\n")
    assert main(_serve(Path("~/fake.sqlite3"))) == 2
    assert f"{tmp_path / 'fake.sqlite3'} is not a dixit-ai tables database" in (
        capsys.readouterr().err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake.sqlite3"]


def test_serve_refuses_a_database_of_other_tables(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(uvicorn, "run", _no_server)
    other = tmp_path / "other.sqlite3"
    _other_database(other)
    assert main(_serve(other)) == 2
    err = capsys.readouterr().err
    assert f"{other} is not a dixit-ai tables database (an SQLite database of other tables: " \
           "contacts)" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.sqlite3"]
    with sqlite3.connect(other) as db:  # left as it was: no table of the server added
        names = [row[0] for row in db.execute("SELECT name FROM sqlite_master")]
    db.close()
    assert names == ["contacts"]


def test_a_tables_database_an_empty_file_and_a_new_path_are_served(tmp_path: Path) -> None:
    check_database(tmp_path / "new.sqlite3")  # created by the server
    assert not (tmp_path / "new.sqlite3").exists()
    (tmp_path / "empty.sqlite3").write_bytes(b"")
    check_database(tmp_path / "empty.sqlite3")
    Store(tmp_path / "tables.sqlite3").close()
    check_database(tmp_path / "tables.sqlite3")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "empty.sqlite3", "tables.sqlite3", "tables.sqlite3.lock"]  # the check leaves nothing
    with pytest.raises(NotATablesDatabase, match="is not a regular file"):
        check_database(tmp_path)


def test_a_store_on_a_file_that_is_not_a_database_lets_its_lock_go(tmp_path: Path) -> None:
    fake = tmp_path / "fake.sqlite3"
    fake.write_text("notadb\n")
    with pytest.raises(NotATablesDatabase, match="is not a dixit-ai tables database"):
        Store(fake)
    ensure_free(fake)  # not held: the failed store released it
    assert fake.read_text() == "notadb\n"


def test_a_failed_start_on_an_old_database_keeps_it_but_no_new_lock_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "tables.sqlite3"
    Store(db).close()
    db.with_name(db.name + ".lock").unlink()

    def fails_at_startup(*args: object, **kwargs: object) -> None:
        sys.exit(3)  # uvicorn's status when the server did not start

    monkeypatch.setattr(uvicorn, "run", fails_at_startup)
    assert main(_serve(db)) == 1
    assert "the server did not start" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tables.sqlite3"]


def test_serve_on_a_fake_database_exits_2_with_one_line_and_no_lock_file(
        tmp_path: Path) -> None:
    """The whole command, in its own process (ended by the timeout if it ever served)."""
    fake = tmp_path / "fake.sqlite3"
    fake.write_text("notadb\n")
    result = subprocess.run(
        [sys.executable, "-m", "dixit_ai.cli", "serve", "--port", str(free_port()),
         "--db", str(fake), "--bot", "random", "--deck", "small=dream:size=40"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""  # no banner
    assert result.stderr.strip().splitlines() == [
        f"dixit-ai serve: error: {fake} is not a dixit-ai tables database (SQLite: file is "
        "not a database); give another --db, or move the file away to start a new database "
        "there"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fake.sqlite3"]
