"""Every window fits the screen it opens on: main window, dialogs, editors, message boxes.

:func:`fit_to_screen` fits a top-level widget, frame included, inside its screen's available
geometry (never below its minimum size) so the title bar and buttons stay on screen. :class:`ScreenFit`,
installed on the application (:func:`install_screen_fit`), does it for every window, so dialogs need
no code of their own; maximized or full-screen windows are left alone. A window manager frames a
window only once it is shown: until then a frame is reserved (:data:`FRAME_GUESS`, then the frame
of the last window framed), and the fit is redone with the real frame when the window is first
exposed (the window manager has framed it by then).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QMargins, QObject, QRect, Qt
from PySide6.QtGui import QGuiApplication, QWindow
from PySide6.QtWidgets import QApplication, QFrame, QScrollArea, QWidget

__all__ = ["FRAME_GUESS", "ScreenFit", "available_geometry", "fit_to_screen", "fits_screen", "frame_geometry",
           "frame_margins", "install_screen_fit", "scrolling"]

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
    """The window frame around ``widget``'s client area as the window system says it now (zeros
    before the window is framed). Not QWidget's: it keeps the frame it last saw when it last moved
    or resized, so a window maximized after the window manager changed its frame looks framed
    with the old one."""
    handle = widget.windowHandle()
    return handle.frameMargins() if handle is not None else QMargins()


def frame_geometry(widget: QWidget) -> QRect:
    """``widget``'s client area with its frame (:func:`frame_margins`)."""
    return widget.geometry().marginsAdded(frame_margins(widget))


def fits_screen(widget: QWidget) -> bool:
    """Whether ``widget``'s frame lies inside its screen's available geometry."""
    return available_geometry(widget).contains(frame_geometry(widget))


def _placed_for_it(widget: QWidget) -> bool:
    """Whether nothing gave ``widget`` a position yet: the window manager chooses one (a dialog centres
    itself over its parent when shown, after this filter, and only when nothing moved it)."""
    return not widget.testAttribute(Qt.WidgetAttribute.WA_Moved)


def fit_to_screen(widget: QWidget, guess: QMargins | None = FRAME_GUESS) -> bool:
    """Fit the top-level ``widget``, frame included, inside its screen's available geometry: smaller
    when too large (never below its minimum size), moved when it sticks out. ``guess``: the frame to
    reserve while the window is not framed yet (None: no frame to come). The window is placed by its
    client area (X11 keeps an unframed window's client where it was put and frames it there), and
    an unframed one the window manager places itself is only resized. Returns whether the widget
    was resized or moved."""
    if not widget.isWindow() or widget.windowState() & (Qt.WindowState.WindowMaximized
                                                        | Qt.WindowState.WindowFullScreen):
        return False
    avail = available_geometry(widget)
    m = frame_margins(widget)
    framed = not m.isNull()
    if not framed and guess is not None:
        m = guess
    client = widget.geometry()
    width = max(min(client.width(), avail.width() - m.left() - m.right()), widget.minimumWidth())
    height = max(min(client.height(), avail.height() - m.top() - m.bottom()), widget.minimumHeight())
    frame_w, frame_h = width + m.left() + m.right(), height + m.top() + m.bottom()
    frame = client.marginsAdded(m)
    resized = (width, height) != (client.width(), client.height())
    if resized:  # smaller around the same centre
        frame = QRect(frame.center().x() - frame_w // 2, frame.center().y() - frame_h // 2, frame_w, frame_h)
    if not framed and _placed_for_it(widget):
        if resized:
            widget.resize(width, height)
        return resized
    x = max(avail.left(), min(frame.x(), avail.left() + avail.width() - frame_w)) + m.left()
    y = max(avail.top(), min(frame.y(), avail.top() + avail.height() - frame_h)) + m.top()
    if not resized and (x, y) == (client.x(), client.y()):
        return False
    widget.setGeometry(x, y, width, height)
    return True


class ScreenFit(QObject):
    """Fits every top-level widget to its screen when it is shown, and again with its real frame when
    it is first exposed (an application event filter: for any other event, a few comparisons of the
    event's type)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        #: The frame reserved for a window not framed yet: the last framed window's, else the guess.
        self.frame = FRAME_GUESS
        #: The windows shown and not exposed yet, by their window handle (what the expose goes to).
        self._unframed: dict[QWindow, QWidget] = {}

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.Show:
            if isinstance(watched, QWidget) and watched.isWindow() and watched.windowType() not in _NOT_FITTED:
                fit_to_screen(watched, self.frame)
                handle = watched.windowHandle()
                if handle is not None:
                    self._unframed[handle] = watched
        elif kind == QEvent.Type.Expose and isinstance(watched, QWindow) and watched in self._unframed:
            self._framed(self._unframed.pop(watched))
        elif kind == QEvent.Type.Hide and self._unframed and isinstance(watched, QWidget) and watched.isWindow():
            self._unframed.pop(watched.windowHandle(), None)
        return False

    def _framed(self, widget: QWidget) -> None:
        """``widget`` is on screen, framed: keep its frame for the next windows, fit it with it."""
        frame = frame_margins(widget)
        if not frame.isNull() and not (widget.isMaximized() or widget.isFullScreen()):
            self.frame = frame
        fit_to_screen(widget, None)


def install_screen_fit(app: QApplication) -> ScreenFit:
    """Fit every window ``app`` shows from now on; keep the returned filter as long as the app."""
    fit = ScreenFit(app)
    app.installEventFilter(fit)
    return fit
