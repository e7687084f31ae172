"""The console's look in one place: Fusion + a palette that follows the system colour scheme,
the colours that carry meaning (task states, account health), icons and translations.

Why one module: the task table, the lane panels and the accounts panel must agree on what
"failed" or "needs login" looks like, in light and in dark mode, or the operator learns two codes.
Resources are looked up next to the source tree first (a checkout) and then under
``sys.prefix/share/mediadesk/resources`` (an installed package), so nothing here needs Qt's
resource compiler.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QPoint, QRectF, QSize, Qt, QTranslator
from PySide6.QtGui import QColor, QFontDatabase, QGuiApplication, QIcon, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QApplication, QCheckBox, QHBoxLayout, QStyleFactory, QWidget

from mediadesk.config.workspace import resources_dir

log = logging.getLogger(__name__)

__all__ = [
    "ToggleSwitch",
    "apply_style",
    "centered",
    "health_color",
    "icon",
    "install_translator",
    "is_dark",
    "resources_dir",
    "state_color",
]

#: (light theme, dark theme). Dark-theme colours are lighter so they keep contrast on a dark base.
_STATE_COLORS: dict[str, tuple[str, str]] = {
    "pending": ("#6b7785", "#9aa5b1"),
    "running": ("#2f6fca", "#5c9cf5"),
    "stalled": ("#c98a12", "#e8b04a"),
    "success": ("#2e9a57", "#4cc47c"),
    "failed": ("#cc3b3b", "#f07070"),
    "canceled": ("#8a6d9e", "#b79bd0"),
}
_HEALTH_COLORS: dict[str, tuple[str, str]] = {
    "ready": ("#2e9a57", "#4cc47c"),
    "busy": ("#2f6fca", "#5c9cf5"),
    "needs_login": ("#c98a12", "#e8b04a"),
    "disabled": ("#6b7785", "#9aa5b1"),
    "error": ("#cc3b3b", "#f07070"),
    "starting": ("#5b6f8a", "#8fa3bf"),
    "challenge": ("#c98a12", "#e8b04a"),
    "resting": ("#6b7785", "#9aa5b1"),
}
_UNKNOWN = ("#6b7785", "#9aa5b1")

_icon_cache: dict[str, QIcon] = {}


# --------------------------------------------------------------------------- resources

def icon(name: str) -> QIcon:
    """``resources/icons/<name>.svg`` as a QIcon (cached). A missing icon is logged and yields an
    empty icon: a cosmetic gap must never stop the console from starting."""
    cached = _icon_cache.get(name)
    if cached is not None:
        return cached
    path = resources_dir() / "icons" / f"{name}.svg"
    if not path.is_file():
        log.warning("icon %r not found at %s", name, path)
        return QIcon()
    ic = QIcon(str(path))
    _icon_cache[name] = ic
    return ic


def install_translator(app: QApplication, locale: QLocale | None = None) -> list[QTranslator]:
    """Install Qt's own translations (standard buttons) and ours for ``locale`` (default: the
    system locale). Returns the installed translators; keep them alive as long as the app."""
    loc = locale or QLocale.system()
    installed: list[QTranslator] = []
    qt_tr = QTranslator(app)
    if qt_tr.load(loc, "qtbase", "_", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        app.installTranslator(qt_tr)
        installed.append(qt_tr)
    ours = QTranslator(app)
    if ours.load(loc, "mediadesk", "_", str(resources_dir() / "i18n")):
        app.installTranslator(ours)
        installed.append(ours)
    return installed


# --------------------------------------------------------------------------- colours

def _pick(table: dict[str, tuple[str, str]], key: str, dark: bool) -> QColor:
    light_c, dark_c = table.get(key, _UNKNOWN)
    return QColor(dark_c if dark else light_c)


def state_color(state: str, dark: bool) -> QColor:
    """Colour of a task state (pending, running, stalled, success, failed, canceled); shared by
    the task table, the lane panels and the batch preview's error rows."""
    return _pick(_STATE_COLORS, state, dark)


def health_color(health: str, dark: bool) -> QColor:
    """Colour of an account/lane health (ready, busy, needs_login, disabled, error, starting)."""
    return _pick(_HEALTH_COLORS, health, dark)


def is_dark(palette: QPalette | None = None) -> bool:
    """True when the (given or application) palette has a dark window background."""
    if palette is None:
        palette = QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


# --------------------------------------------------------------------------- application style

def _dark_palette() -> QPalette:
    p = QPalette()
    roles = QPalette.ColorRole
    base, window, text = QColor("#1e2227"), QColor("#2a2f36"), QColor("#e6e8eb")
    p.setColor(roles.Window, window)
    p.setColor(roles.WindowText, text)
    p.setColor(roles.Base, base)
    p.setColor(roles.AlternateBase, QColor("#252a30"))
    p.setColor(roles.ToolTipBase, QColor("#31363d"))
    p.setColor(roles.ToolTipText, text)
    p.setColor(roles.PlaceholderText, QColor("#8b939c"))
    p.setColor(roles.Text, text)
    p.setColor(roles.Button, window)
    p.setColor(roles.ButtonText, text)
    p.setColor(roles.BrightText, QColor("#ff6b6b"))
    p.setColor(roles.Link, QColor("#5c9cf5"))
    p.setColor(roles.Highlight, QColor("#3d6fb6"))
    p.setColor(roles.HighlightedText, QColor("#ffffff"))
    disabled = QPalette.ColorGroup.Disabled
    for role in (roles.WindowText, roles.Text, roles.ButtonText):
        p.setColor(disabled, role, QColor("#6d747c"))
    return p


def _system_is_dark(app: QApplication) -> bool:
    scheme = app.styleHints().colorScheme()  # Qt >= 6.5
    if scheme == Qt.ColorScheme.Dark:
        return True
    if scheme == Qt.ColorScheme.Light:
        return False
    return is_dark(app.style().standardPalette())


def apply_style(app: QApplication) -> None:
    """Fusion everywhere (the same metrics on every OS), with a light or dark palette chosen from
    the system colour scheme, and re-chosen when the user switches it while we run."""
    fusion = QStyleFactory.create("Fusion")
    if fusion is not None:
        app.setStyle(fusion)

    def refresh(*_: object) -> None:
        app.setPalette(_dark_palette() if _system_is_dark(app) else app.style().standardPalette())

    refresh()
    if not app.property("mediadesk_style_hooked"):
        app.styleHints().colorSchemeChanged.connect(refresh)
        app.setProperty("mediadesk_style_hooked", True)


# --------------------------------------------------------------------------- widgets

class ToggleSwitch(QCheckBox):
    """A QCheckBox drawn as an on/off switch. Still a checkbox underneath (``toggled``,
    ``clicked``, keyboard and accessibility work unchanged); only the painting differs, so an
    operator's switch looks unlike a status light."""

    _TRACK_W, _TRACK_H = 34, 18

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def sizeHint(self) -> QSize:
        return QSize(self._TRACK_W + 4, self._TRACK_H + 4)

    def minimumSizeHint(self) -> QSize:
        return self.sizeHint()

    def hitButton(self, pos: QPoint) -> bool:  # the whole widget is the switch
        return self.rect().contains(pos)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        pal = self.palette()
        dark = is_dark(pal)
        w, h = self._TRACK_W, self._TRACK_H
        x = (self.width() - w) / 2
        y = (self.height() - h) / 2
        track = QRectF(x, y, w, h)
        color = QColor(health_color("ready", dark) if self.isChecked() else pal.color(QPalette.ColorRole.Mid))
        if not self.isEnabled():
            color.setAlpha(110)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(color)
        painter.drawRoundedRect(track, h / 2, h / 2)
        knob_d = h - 4
        knob_x = x + w - knob_d - 2 if self.isChecked() else x + 2
        painter.setBrush(QColor("#ffffff"))
        painter.drawEllipse(QRectF(knob_x, y + 2, knob_d, knob_d))
        if self.hasFocus():
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.setPen(pal.color(QPalette.ColorRole.Highlight))
            painter.drawRoundedRect(track.adjusted(-1, -1, 1, 1), h / 2 + 1, h / 2 + 1)
        painter.end()


def centered(widget: QWidget, align: Qt.AlignmentFlag = Qt.AlignmentFlag.AlignCenter) -> QWidget:
    """``widget`` in a margin-less holder, aligned in the cell (for table cell widgets, which
    Qt otherwise stretches to the full cell)."""
    holder = QWidget()
    lay = QHBoxLayout(holder)
    lay.setContentsMargins(4, 0, 4, 0)
    lay.addWidget(widget, 0, align | Qt.AlignmentFlag.AlignVCenter)
    return holder


def missing_fonts() -> list[str]:
    """What the console needs but the system lacks, as operator advice: a font with Simplified Chinese
    glyphs (the zh_CN translation and Chinese prompts) and a colour emoji font (prompts and answers
    carry emoji). Empty when both are installed. Call after the QApplication exists."""
    missing = []
    if not QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese):
        missing.append(QCoreApplication.translate(
            "Format", "no font with Chinese characters: install one (Debian/Ubuntu: apt-get install fonts-noto-cjk)"))
    if not any("emoji" in family.lower() for family in QFontDatabase.families()):
        missing.append(QCoreApplication.translate(
            "Format", "no colour emoji font: install one (Debian/Ubuntu: apt-get install fonts-noto-color-emoji)"))
    return missing

