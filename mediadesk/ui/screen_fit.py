"""Every window fits the screen it opens on: main window, dialogs, editors, message boxes.

:func:`fit_to_screen` clamps a top-level widget, frame included, to its screen's available geometry
(never below its minimum size) so the title bar and buttons stay on screen. :class:`ScreenFit`,
installed on the application (:func:`install_screen_fit`), does it for every window, so dialogs need
no code of their own; maximized or full-screen windows are left alone. Before a window is framed,
:data:`FRAME_GUESS` is reserved and the fit is redone with the real frame.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMargins, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QWidget

__all__ = ["FRAME_GUESS", "ScreenFit", "available_geometry", "fit_to_screen", "fits_screen", "install_screen_fit",
           "scrolling"]

#: The frame reserved while the real one is not known yet: a title bar and thin borders.
FRAME_GUESS = QMargins(4, 32, 4, 4)

#: Window types the window manager or Qt places by themselves (menus, tooltips, splash screens).
_NOT_FITTED = (Qt.WindowType.Popup, Qt.WindowType.ToolTip, Qt.WindowType.SplashScreen, Qt.WindowType.Desktop)


def scrolling(widget: QWidget) -> QScrollArea:
    """``widget`` in a frameless scroll area that fits it to its width and height while there is
    room, and scrolls when there is not (a pane's minimum size then no longer sets the window's)."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setFrameShape(QFrame.Shape.NoFrame)
    scroll.setWidget(widget)
    return scroll


def available_geometry(widget: QWidget) -> QRect:
    """The available geometry of the screen ``widget`` is on (else the primary screen's)."""
    screen = widget.screen() or QGuiApplication.screenAt(widget.geometry().center()) \
        or QGuiApplication.primaryScreen()
    return screen.availableGeometry() if screen is not None else QRect(0, 0, 1024, 640)


def frame_margins(widget: QWidget) -> QMargins:
    """The window frame around ``widget``'s client area as the window system says it (zeros
    before the window is framed)."""
    outer, inner = widget.frameGeometry(), widget.geometry()
    return QMargins(inner.left() - outer.left(), inner.top() - outer.top(),
                    outer.right() - inner.right(), outer.bottom() - inner.bottom())


def _at_least(a: QMargins, b: QMargins) -> QMargins:
    return QMargins(max(a.left(), b.left()), max(a.top(), b.top()), max(a.right(), b.right()),
                    max(a.bottom(), b.bottom()))


def fits_screen(widget: QWidget) -> bool:
    """Whether ``widget``'s frame lies inside its screen's available geometry."""
    return available_geometry(widget).contains(widget.frameGeometry())


def fit_to_screen(widget: QWidget, *, guess_frame: bool = True) -> bool:
    """Clamp the top-level ``widget`` (frame included) to its screen's available geometry.
    ``guess_frame``: reserve at least :data:`FRAME_GUESS` for a frame not known yet. Returns
    whether the widget was resized or moved."""
    if not widget.isWindow() or widget.windowState() & (Qt.WindowState.WindowMaximized
                                                        | Qt.WindowState.WindowFullScreen):
        return False
    avail = available_geometry(widget)
    m = frame_margins(widget)
    if guess_frame:
        m = _at_least(m, FRAME_GUESS)
    room_w = avail.width() - m.left() - m.right()
    room_h = avail.height() - m.top() - m.bottom()
    size = widget.size()
    changed = False
    if size.width() > room_w or size.height() > room_h:
        center = widget.frameGeometry().center()
        widget.resize(max(min(size.width(), room_w), widget.minimumWidth()),
                      max(min(size.height(), room_h), widget.minimumHeight()))
        frame_w = widget.width() + m.left() + m.right()
        frame_h = widget.height() + m.top() + m.bottom()
        widget.move(center.x() - frame_w // 2, center.y() - frame_h // 2)
        changed = True
    frame_w = widget.width() + m.left() + m.right()
    frame_h = widget.height() + m.top() + m.bottom()
    pos = widget.pos()  # a window's position is its frame's
    x = max(avail.left(), min(pos.x(), avail.left() + avail.width() - frame_w))
    y = max(avail.top(), min(pos.y(), avail.top() + avail.height() - frame_h))
    if (x, y) != (pos.x(), pos.y()):
        widget.move(x, y)
        changed = True
    return changed


class ScreenFit(QObject):
    """Fits every top-level widget to its screen when it is shown (an application event filter:
    the check is one comparison of the event's type for any other event)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Show and isinstance(watched, QWidget) and watched.isWindow() \
                and watched.windowType() not in _NOT_FITTED:
            fit_to_screen(watched)
            # once framed, check again with the real frame (a window manager's may be thicker)
            QTimer.singleShot(0, watched, lambda w=watched: w.isVisible() and fit_to_screen(w, guess_frame=False))
        return False


def install_screen_fit(app: QApplication) -> ScreenFit:
    """Fit every window ``app`` shows from now on; keep the returned filter as long as the app."""
    fit = ScreenFit(app)
    app.installEventFilter(fit)
    return fit
