"""The Notices dock: what needs the operator, kept until seen or handled (the items are
:class:`~mediadesk.viewmodel.attention.AttentionItem`; :mod:`mediadesk.ui.window.attention` feeds
them). Each row: when, what, what to do, and a button when there is one; "Mark all seen" and
"Clear seen" below. Unseen rows are bold. Outside text (an account's error, a path) is plain text.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from PySide6.QtCore import Signal
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mediadesk.core.text import printable
from mediadesk.ui.plain import plain, plain_tip
from mediadesk.viewmodel.attention import AttentionItem

__all__ = ["NoticesView"]

_COL_TIME, _COL_WHAT, _COL_NEXT_STEP, _COL_ACTION = range(4)


class NoticesView(QWidget):
    """The list. ``actionRequested(key)``: the button of the item ``key`` was clicked."""

    actionRequested = Signal(str)
    markAllSeen = Signal()
    clearSeen = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticesView")
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("noticesTree")
        self.tree.setRootIsDecorated(False)
        self.tree.setHeaderLabels([self.tr("Time"), self.tr("What"), self.tr("What to do"), ""])
        hh = self.tree.header()
        hh.setStretchLastSection(False)  # the button column as wide as its button
        hh.setSectionResizeMode(_COL_TIME, QHeaderView.ResizeMode.ResizeToContents)
        hh.setSectionResizeMode(_COL_WHAT, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(_COL_NEXT_STEP, QHeaderView.ResizeMode.Stretch)
        hh.setSectionResizeMode(_COL_ACTION, QHeaderView.ResizeMode.ResizeToContents)
        self.empty = plain(QLabel(self.tr("Nothing needs you. Logins, bot checks, stopped endpoints, refused "
                                          "keys and finished batches are listed here until you have seen them.")))
        self.empty.setWordWrap(True)
        self.seen_btn = QPushButton(self.tr("Mark all seen"), self)
        self.seen_btn.setObjectName("markAllSeen")
        self.seen_btn.clicked.connect(self.markAllSeen.emit)
        self.clear_btn = QPushButton(self.tr("Clear seen"), self)
        self.clear_btn.setObjectName("clearSeen")
        self.clear_btn.setToolTip(self.tr("Remove the seen notices (one whose cause lasts stays until it is handled)"))
        self.clear_btn.clicked.connect(self.clearSeen.emit)
        buttons = QHBoxLayout()
        buttons.addWidget(self.seen_btn)
        buttons.addWidget(self.clear_btn)
        buttons.addStretch(1)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(self.empty)
        lay.addWidget(self.tree, 1)
        lay.addLayout(buttons)
        self.items: list[AttentionItem] = []
        self.show_items([])

    # ------------------------------------------------------------------ words
    def what(self, item: AttentionItem) -> str:
        s, d = printable(item.subject, multiline=False), printable(item.detail, multiline=False)
        if item.kind == "login":
            return self.tr("Account {account} is logged out").format(account=s)
        if item.kind == "challenge":
            return self.tr("Account {account} shows a bot check").format(account=s)
        if item.kind == "stopped":  # the subject is "endpoint NAME" or "account NAME"
            kind, _, name = s.partition(" ")
            callee = (self.tr("Endpoint {name}") if kind == "endpoint" else self.tr("Account {name}")).format(name=name)
            text = self.tr("{callee} stopped taking tasks").format(callee=callee)
            return f"{text} ({d})" if d else text
        if item.kind == "key_rejected":
            return self.tr("The API key of {lane} was refused").format(lane=s)
        if item.kind == "batch_done":
            ok, failed, canceled = (*item.counts, 0, 0, 0)[:3]
            text = self.tr("Batch finished: {ok} succeeded, {failed} failed").format(ok=ok, failed=failed)
            return text + (self.tr(", {n} canceled").format(n=canceled) if canceled else "")
        if item.kind == "storage":
            return self.tr("The database {path} failed ({detail})").format(path=s, detail=d)
        return s

    def todo(self, item: AttentionItem) -> tuple[str, str]:
        """(what to do, the button's text or "")."""
        if item.kind == "login":
            return self.tr("Log in again; the account takes no task until then."), self.tr("Log in")
        if item.kind == "challenge":
            return self.tr("Solve the check in the account's browser; it takes no task until then."), \
                self.tr("Open the browser")
        if item.kind == "stopped":
            return self.tr("It is probed and resumes by itself when it answers; if it stays stopped, "
                           "check its address and key in Setup."), self.tr("Setup…")
        if item.kind == "key_rejected":
            return self.tr("Check the key (its variable or keyring entry) in Setup, then retry the "
                           "failed tasks."), self.tr("Setup…")
        if item.kind == "batch_done":
            return self.tr("Export the results, or retry the failed tasks."), self.tr("Export…")
        if item.kind == "storage":
            return self.tr("Close MediaDesk, fix the disk or the file, then start again: unfinished "
                           "tasks resume."), ""
        return "", ""

    # ------------------------------------------------------------------ shown
    def show_items(self, items: Sequence[AttentionItem]) -> None:
        self.items = list(items)
        self.tree.clear()
        for item in self.items:
            todo, button = self.todo(item)
            row = QTreeWidgetItem([time.strftime("%H:%M:%S", time.localtime(item.ts)), self.what(item), todo, ""])
            row.setToolTip(_COL_WHAT, plain_tip(row.text(_COL_WHAT)))
            row.setToolTip(_COL_NEXT_STEP, plain_tip(todo))
            if not item.seen:
                font = QFont(row.font(_COL_WHAT))
                font.setBold(True)
                for col in (_COL_TIME, _COL_WHAT):
                    row.setFont(col, font)
            self.tree.addTopLevelItem(row)
            if button:
                b = QPushButton(button)
                b.setObjectName(f"noticeAction_{item.kind}")
                b.clicked.connect(lambda _c=False, key=item.key: self.actionRequested.emit(key))
                self.tree.setItemWidget(row, _COL_ACTION, b)
        self.empty.setVisible(not self.items)
        self.tree.setVisible(bool(self.items))
        self.seen_btn.setEnabled(any(not i.seen for i in self.items))
        self.clear_btn.setEnabled(any(i.seen and not i.condition for i in self.items))

    def row_texts(self) -> list[list[str]]:
        """Rows as text (tests, screenshots)."""
        out = []
        for i in range(self.tree.topLevelItemCount()):
            row = self.tree.topLevelItem(i)
            assert row is not None
            out.append([row.text(c) for c in range(3)])
        return out

    def action_button(self, row: int) -> QPushButton | None:
        item = self.tree.topLevelItem(row)
        widget = self.tree.itemWidget(item, _COL_ACTION) if item is not None else None
        return widget if isinstance(widget, QPushButton) else None
