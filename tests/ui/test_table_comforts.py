"""Table comforts on the real console: row and header menus, Ctrl+C, the cancel question,
exports of all / filtered / selected rows, remembered filters and sort, a stable selection.

Real Scheduler, real ApiSimServer on 127.0.0.1, real SQLite; web lanes are the in-process
FakeWebBackend from conftest; offscreen Qt.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from PySide6.QtCore import QEvent, QItemSelectionModel, QSettings, Qt, QUrl
from PySide6.QtWidgets import QApplication, QMenu

from mediadesk.scheduler import Scheduler
from mediadesk.ui.app.bridge import SchedulerBridge
from mediadesk.ui.models.task_model import Col
from mediadesk.ui.window.main_window import MainWindow
from tests.ui.conftest import ARun, ConsoleEnv
from tests.ui.test_main_window import db_states, select_tasks, wait_states

LONG_PROMPT = "a prompt longer than the table's 80-character head,\nwith a second line " + "x" * 120


@pytest.fixture
def settings(tmp_path: Path) -> QSettings:
    return QSettings(str(tmp_path / "window.ini"), QSettings.Format.IniFormat)


WindowFactory = Callable[[], MainWindow]


@pytest.fixture
def make_window(console_scheduler: Scheduler, arun: ARun, settings: QSettings) -> Iterator[WindowFactory]:
    """Open consoles on the one scheduler (a second one after the first is closed: what a restart sees)."""
    made: list[tuple[MainWindow, SchedulerBridge]] = []

    def make() -> MainWindow:
        bridge = SchedulerBridge(console_scheduler.bus)
        w = MainWindow(console_scheduler, bridge, settings=settings)
        w.show()
        arun(w.start())
        made.append((w, bridge))
        return w

    yield make
    for w, bridge in made:
        arun(w.aclose())
        bridge.detach()
        w.close()
        w.deleteLater()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)


@pytest.fixture
def window(make_window: WindowFactory) -> MainWindow:
    return make_window()


def menu_action(menu: QMenu, name: str) -> Any:
    for act in menu.actions():
        if act.objectName() == name:
            return act
    raise AssertionError(f"no action {name!r} in {[a.objectName() for a in menu.actions()]}")


def proxy_row(w: MainWindow, task_id: str) -> int:
    w.model.flush()
    row = w.model.row_of(task_id)
    assert row is not None, task_id
    return w.proxy.mapFromSource(w.model.index(row, 0)).row()


def shown_ids(w: MainWindow) -> list[str]:
    return w.proxy.task_ids(range(w.proxy.rowCount()))


def settle(qtbot: Any, w: MainWindow, ids: list[str], states: dict[str, str] | None = None) -> None:
    """Wait until the model has every id (and, when given, shows these states)."""
    def ok() -> bool:
        w.model.flush()
        if any(w.model.row_of(t) is None for t in ids):
            return False
        return states is None or all(w.model.state_of(t) == st for t, st in states.items())

    qtbot.waitUntil(ok, timeout=10_000)


# --------------------------------------------------------------------------------------------- row menu

def test_row_menu_retry_and_cancel_are_the_toolbar_actions(window: MainWindow, console_env: ConsoleEnv,
                                                          console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    window.task_actions.set_paused("api", True)
    s.intake.submit([s.intake.new_task(f"p{i}", "writer", f"pending {i}") for i in range(3)])
    settle(qtbot, window, ["p0", "p1", "p2"])
    select_tasks(window, ["p0", "p1"])
    # Right-click on a row outside the selection selects that row alone (as file managers do).
    menu = window.table_menu.row_menu(proxy_row(window, "p2"))
    assert window.task_actions.selected_task_ids() == ["p2"]
    assert menu_action(menu, "actCancel") is window.act_cancel
    assert menu_action(menu, "actRetry") is window.act_retry
    menu.close()
    # Right-click inside the selection keeps it.
    select_tasks(window, ["p0", "p1"])
    menu = window.table_menu.row_menu(proxy_row(window, "p1"))
    assert window.task_actions.selected_task_ids() == ["p0", "p1"]
    menu_action(menu, "actCancel").trigger()
    wait_states(qtbot, console_env, {"p0": "canceled", "p1": "canceled", "p2": "pending"})
    assert "Cancel requested for 2 of 2" in window.status_line.last_message
    menu.close()


def test_copy_id_prompt_and_result_from_the_row_menu(window: MainWindow, console_env: ConsoleEnv,
                                                    console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task("c1", "writer", LONG_PROMPT), s.intake.new_task("c2", "writer", "short one")])
    wait_states(qtbot, console_env, {"c1": "success", "c2": "success"})
    settle(qtbot, window, ["c1", "c2"], {"c1": "success", "c2": "success"})
    clip = QApplication.clipboard()
    select_tasks(window, ["c1"])
    menu = window.table_menu.row_menu(proxy_row(window, "c1"))
    menu_action(menu, "menuCopyId").trigger()
    assert clip.text() == "c1"
    menu_action(menu, "menuCopyPrompt").trigger()
    qtbot.waitUntil(lambda: clip.text() == LONG_PROMPT, timeout=5_000)  # the whole prompt, not the head
    menu_action(menu, "menuCopyResult").trigger()
    qtbot.waitUntil(lambda: clip.text() == f"答复: {LONG_PROMPT} ✅", timeout=5_000)
    menu.close()
    select_tasks(window, ["c1", "c2"])
    menu = window.table_menu.row_menu(proxy_row(window, "c2"))
    menu_action(menu, "menuCopyId").trigger()
    assert clip.text() == "c1\nc2"
    menu_action(menu, "menuCopyResult").trigger()
    qtbot.waitUntil(lambda: clip.text() == f"答复: {LONG_PROMPT} ✅\n\n答复: short one ✅", timeout=5_000)
    assert "Copied 2 results" in window.status_line.last_message
    menu.close()


def test_ctrl_c_copies_selected_rows_as_tab_separated_text(window: MainWindow, console_env: ConsoleEnv,
                                                            console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    window.task_actions.set_paused("api", True)
    s.intake.submit([s.intake.new_task("k1", "writer", "one\tcell"), s.intake.new_task("k2", "reasoner", "two"),
              s.intake.new_task("k3", "writer", "three")])
    settle(qtbot, window, ["k1", "k2", "k3"])
    window.table.setColumnHidden(Col.ERROR, True)
    select_tasks(window, ["k3", "k1"])
    window.activateWindow()
    window.table.setFocus()
    qtbot.waitUntil(window.table.hasFocus, timeout=5_000)
    qtbot.keyClick(window.table, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    lines = QApplication.clipboard().text().split("\n")
    hh = window.table.horizontalHeader()
    visible = [hh.logicalIndex(v) for v in range(hh.count()) if not hh.isSectionHidden(hh.logicalIndex(v))]
    assert len(lines) == 2  # one line per selected row, in table order, no cell left out
    first = lines[0].split("\t")
    assert len(first) == len(visible) == Col.ERROR  # every visible column, the hidden one left out
    assert first[Col.ID] == "k1" and first[Col.PROFILE] == "writer" and first[Col.STATE] == "pending"
    assert first[Col.PROMPT] == "one cell"  # a tab inside a cell would shift the columns
    assert lines[1].split("\t")[Col.ID] == "k3"


def test_cancel_above_20_rows_asks_first(window: MainWindow, console_env: ConsoleEnv,
                                         console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    window.task_actions.set_paused("api", True)
    ids = [f"m{i:02d}" for i in range(25)]
    s.intake.submit([s.intake.new_task(t, "writer", t) for t in ids])
    settle(qtbot, window, ids)
    asked: list[int] = []
    answer = [False]

    def confirm(n: int, finished: int) -> bool:
        asked.append(n)
        assert finished == 0
        return answer[0]

    window.task_actions.confirm_cancel = confirm
    select_tasks(window, ids)
    window.act_cancel.trigger()
    assert asked == [25]
    assert set(db_states(console_env).values()) == {"pending"}  # declined: nothing canceled
    assert "Nothing canceled" in window.status_line.last_message
    answer[0] = True
    window.act_cancel.trigger()
    assert asked == [25, 25]
    wait_states(qtbot, console_env, dict.fromkeys(ids, "canceled"))
    # 20 rows or fewer: no question
    more = [f"n{i:02d}" for i in range(20)]
    s.intake.submit([s.intake.new_task(t, "writer", t) for t in more])
    settle(qtbot, window, more)
    select_tasks(window, more)
    window.act_cancel.trigger()
    assert asked == [25, 25]
    wait_states(qtbot, console_env, dict.fromkeys(more, "canceled"))


def test_cancel_counts_only_what_can_still_be_canceled(window: MainWindow, console_env: ConsoleEnv,
                                                       console_scheduler: Scheduler, qtbot: Any) -> None:
    """Del on 40 rows, 30 of them finished: the question says 10 (and that 30 are left as they are),
    and 10 are canceled."""
    from mediadesk.ui.window.table_menu import cancel_many_text

    s = console_scheduler
    window.task_actions.set_paused("api", True)
    done = [f"d{i:02d}" for i in range(30)]
    s.intake.submit([s.intake.new_task(t, "writer", t) for t in done])
    settle(qtbot, window, done)
    assert s.cancel(done) == 30  # finished (canceled) before the operator's Del
    settle(qtbot, window, done, dict.fromkeys(done, "canceled"))
    open_ = [f"o{i:02d}" for i in range(10)]
    s.intake.submit([s.intake.new_task(t, "writer", t) for t in open_])
    settle(qtbot, window, open_)
    asked: list[tuple[int, int]] = []

    def confirm(n: int, finished: int) -> bool:
        asked.append((n, finished))
        return True

    window.task_actions.confirm_cancel = confirm
    select_tasks(window, done + open_)
    window.act_cancel.trigger()
    assert asked == [(10, 30)]
    wait_states(qtbot, console_env, dict.fromkeys(open_, "canceled"))
    assert "10 of 40" in window.status_line.last_message
    text = cancel_many_text(10, 30)
    assert text.startswith("Cancel 10 tasks? (30 already finished are left as they are)"), text
    # only finished rows selected: nothing to ask, nothing to cancel
    select_tasks(window, done)
    window.act_cancel.trigger()
    assert asked == [(10, 30)]
    assert "all finished" in window.status_line.last_message


def test_open_evidence_folder(window: MainWindow, console_env: ConsoleEnv, console_scheduler: Scheduler,
                              qtbot: Any) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task("ev-1", "writer", "[[sim:400]] has evidence"),
                     s.intake.new_task("ev-2", "writer", "none")])
    wait_states(qtbot, console_env, {"ev-1": "failed", "ev-2": "success"})
    settle(qtbot, window, ["ev-1", "ev-2"])
    folder = console_env.workspace.evidence_dir / "ev-1"
    folder.mkdir(parents=True)
    (folder / "page.png").write_bytes(b"\x89PNG")
    opened: list[QUrl] = []
    window.table_menu.opener = lambda url: opened.append(url)
    menu = window.table_menu.row_menu(proxy_row(window, "ev-1"))
    act = menu_action(menu, "menuOpenEvidence")
    assert act.isEnabled()
    act.trigger()
    assert [u.toLocalFile() for u in opened] == [str(folder)]
    menu.close()
    menu = window.table_menu.row_menu(proxy_row(window, "ev-2"))
    assert not menu_action(menu, "menuOpenEvidence").isEnabled()  # no folder: nothing to open
    menu.close()


def test_show_only_this_account_profile_or_batch(window: MainWindow, console_env: ConsoleEnv,
                                                 console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    tasks = [s.intake.new_task(f"w{i}", "chat", f"web {i}", batch="web-batch") for i in range(6)]
    tasks += [s.intake.new_task(f"a{i}", "writer", f"api {i}", batch="api-batch") for i in range(3)]
    tasks += [s.intake.new_task("r0", "reasoner", "other profile", batch="api-batch")]
    s.intake.submit(tasks)
    all_ids = [t.task_id for t in tasks]
    wait_states(qtbot, console_env, dict.fromkeys(all_ids, "success"))
    settle(qtbot, window, all_ids, dict.fromkeys(all_ids, "success"))
    acct_a = sorted(t for t in all_ids if t.startswith("w") and window.model.rows.row_at(
        window.model.row_of(t) or 0).account == "acct-a")
    assert acct_a  # two accounts shared the six web tasks
    menu = window.table_menu.row_menu(proxy_row(window, acct_a[0]))
    only_account = menu_action(menu, "menuOnlyAccount")
    assert "acct-a" in only_account.text()
    only_account.trigger()
    assert sorted(shown_ids(window)) == acct_a
    scope = window.filter_bar.scope_button
    # shown on the toolbar (the main toolbar makes room), not in an overflow menu
    qtbot.waitUntil(lambda: scope.isVisible() and not scope.visibleRegion().isEmpty(), timeout=5_000)
    assert window.rect().contains(scope.mapTo(window, scope.rect().bottomRight()))
    assert "acct-a" in scope.text()
    window.filter_bar.scope_button.click()  # clears the account/batch scope
    assert len(shown_ids(window)) == len(all_ids)
    menu.close()

    menu = window.table_menu.row_menu(proxy_row(window, "a1"))
    assert not menu_action(menu, "menuOnlyAccount").isEnabled()  # an API task has no account
    menu_action(menu, "menuOnlyBatch").trigger()
    assert sorted(shown_ids(window)) == ["a0", "a1", "a2", "r0"]
    menu.close()
    menu = window.table_menu.row_menu(proxy_row(window, "r0"))
    menu_action(menu, "menuOnlyProfile").trigger()  # narrows further: batch AND profile
    assert shown_ids(window) == ["r0"]
    assert window.filter_bar.profile_combo.currentData() == "reasoner"
    menu.close()
    menu = window.table_menu.row_menu(proxy_row(window, "r0"))
    menu_action(menu, "menuShowAll").trigger()
    assert len(shown_ids(window)) == len(all_ids)
    qtbot.waitUntil(lambda: not scope.isVisible(), timeout=5_000)
    menu.close()


# --------------------------------------------------------------------------------------------- header

def test_header_menu_hides_columns_and_a_restart_remembers(make_window: WindowFactory, qtbot: Any) -> None:
    w1 = make_window()
    menu = w1.table_menu.header_menu()
    names = [a.text() for a in menu.actions()]
    assert names[:5] == ["id", "lane", "profile", "account", "state"]
    account = next(a for a in menu.actions() if a.text() == "account")
    assert account.isCheckable() and account.isChecked()
    account.trigger()
    assert w1.table.isColumnHidden(Col.ACCOUNT)
    menu.close()
    for col in range(w1.model.columnCount()):
        if col != Col.ID:
            w1.table.setColumnHidden(col, True)
    menu = w1.table_menu.header_menu()
    last = next(a for a in menu.actions() if a.text() == "id")
    assert last.isChecked() and not last.isEnabled()  # the last visible column stays
    menu.close()
    for col in range(w1.model.columnCount()):
        w1.table.setColumnHidden(col, col == Col.ACCOUNT)
    w1.close()  # saves

    w2 = make_window()
    assert w2.table.isColumnHidden(Col.ACCOUNT)
    assert not w2.table.isColumnHidden(Col.PROMPT)


# --------------------------------------------------------------------------------------------- remembered

def test_filters_and_sort_are_remembered(make_window: WindowFactory, console_env: ConsoleEnv,
                                         console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"s{i}", "writer", f"alpha {i}") for i in range(5)]
             + [s.intake.new_task("bad", "writer", "[[sim:400]] alpha bad")]
             + [s.intake.new_task(f"x{i}", "reasoner", f"beta {i}") for i in range(3)])
    ids = [f"s{i}" for i in range(5)] + ["bad"] + [f"x{i}" for i in range(3)]
    wait_states(qtbot, console_env, {"bad": "failed", **{t: "success" for t in ids if t != "bad"}})
    w1 = make_window()
    settle(qtbot, w1, ids)
    fb = w1.filter_bar
    fb.profile_combo.setCurrentIndex(fb.profile_combo.findData("writer"))
    fb.search.setText("alpha")
    w1.filter_bar.apply()
    w1.table.horizontalHeader().setSortIndicator(Col.ID, Qt.SortOrder.DescendingOrder)
    assert shown_ids(w1) == ["s4", "s3", "s2", "s1", "s0", "bad"]
    w1.close()

    w2 = make_window()
    settle(qtbot, w2, ids)
    assert w2.filter_bar.profile_combo.currentData() == "writer"
    assert w2.filter_bar.search.text() == "alpha"
    hh = w2.table.horizontalHeader()
    assert (hh.sortIndicatorSection(), hh.sortIndicatorOrder()) == (Col.ID, Qt.SortOrder.DescendingOrder)
    assert shown_ids(w2) == ["s4", "s3", "s2", "s1", "s0", "bad"]  # filtered and sorted after the load
    assert "6 of 9 tasks shown" in w2.status_line.status_label.text()


def test_sorted_view_keeps_the_selection_while_rows_change(window: MainWindow, console_env: ConsoleEnv,
                                                           console_scheduler: Scheduler, qtbot: Any) -> None:
    s = console_scheduler
    window.task_actions.set_paused("api", True)
    ids = [f"q{i:02d}" for i in range(12)]
    s.intake.submit([s.intake.new_task(t, "writer" if i % 2 else "reasoner", f"prompt {t}") for i, t in enumerate(ids)])
    settle(qtbot, window, ids)
    window.table.horizontalHeader().setSortIndicator(Col.ID, Qt.SortOrder.DescendingOrder)
    assert shown_ids(window)[0] == "q11"
    chosen = ["q09", "q08", "q03"]
    window.table.selectionModel().setCurrentIndex(window.proxy.index(proxy_row(window, "q08"), 0),
                                                  QItemSelectionModel.SelectionFlag.NoUpdate)
    select_tasks(window, chosen)
    before = sorted(window.task_actions.selected_task_ids())
    assert before == sorted(chosen)
    # Rows change under the sorted view: new tasks arrive, every task runs and finishes.
    s.intake.submit([s.intake.new_task(f"z{i}", "writer", f"late {i}") for i in range(5)])
    window.task_actions.set_paused("api", False)
    every = [*ids, *(f"z{i}" for i in range(5))]
    wait_states(qtbot, console_env, dict.fromkeys(every, "success"))
    settle(qtbot, window, every, dict.fromkeys(every, "success"))
    assert sorted(window.task_actions.selected_task_ids()) == before
    # A re-sort by another column, while selected: still the same tasks.
    window.table.horizontalHeader().setSortIndicator(Col.PROFILE, Qt.SortOrder.AscendingOrder)
    assert sorted(window.task_actions.selected_task_ids()) == before
    s.intake.submit([s.intake.new_task("z9", "reasoner", "one more")])
    wait_states(qtbot, console_env, {"z9": "success"})
    settle(qtbot, window, ["z9"], {"z9": "success"})
    assert sorted(window.task_actions.selected_task_ids()) == before


# --------------------------------------------------------------------------------------------- export

def test_export_all_filtered_and_selected(window: MainWindow, console_env: ConsoleEnv,
                                          console_scheduler: Scheduler, arun: ARun, qtbot: Any,
                                          tmp_path: Path) -> None:
    s = console_scheduler
    s.intake.submit([s.intake.new_task(f"e{i}", "writer", f"export {i}") for i in range(4)]
             + [s.intake.new_task(f"f{i}", "reasoner", f"other {i}") for i in range(2)])
    ids = [f"e{i}" for i in range(4)] + ["f0", "f1"]
    wait_states(qtbot, console_env, dict.fromkeys(ids, "success"))
    settle(qtbot, window, ids)
    window.filter_bar.profile_combo.setCurrentIndex(window.filter_bar.profile_combo.findData("reasoner"))
    select_tasks(window, ["f1"])
    out = tmp_path / "sel.jsonl"
    assert arun(window.task_actions.export_to(out, "jsonl", "selected")) == 1
    assert [json.loads(x)["task_id"] for x in out.read_text(encoding="utf-8").splitlines()] == ["f1"]
    out = tmp_path / "filtered.md"
    assert arun(window.task_actions.export_to(out, "md", "filtered")) == 2
    assert [ln.split(" | ")[0] for ln in out.read_text(encoding="utf-8").splitlines()[2:]] == ["| f0", "| f1"]
    out = tmp_path / "all.xlsx"
    assert arun(window.task_actions.export_to(out, "xlsx", "all")) == 6
    sheet = openpyxl.load_workbook(out).active
    assert sheet is not None and sheet.max_row == 7
    assert "Exported 6 tasks" in window.status_line.last_message
    window.table.clearSelection()
    assert arun(window.task_actions.export_to(tmp_path / "none.csv", "csv", "selected")) == 0
    assert not (tmp_path / "none.csv").exists()  # nothing selected: no file, and it says so
    assert "Nothing selected" in window.status_line.last_message


def test_export_menu_offers_the_three_scopes(window: MainWindow) -> None:
    menu = window.act_export.menu()
    assert menu is not None
    names = [a.objectName() for a in menu.actions()]
    assert names == ["actExportAll", "actExportFiltered", "actExportSelected", "", "actExportInto"]
