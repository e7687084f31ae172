"""What the PyInstaller spec (packaging/mediadesk.spec) builds on each OS, computed without PyInstaller.

:func:`target` takes the target OS (``"win32"``, ``"darwin"`` or ``"linux"``, as ``sys.platform``
spells them) and returns every per-OS choice the spec makes: the executables (a windowed GUI one and,
on Windows, a console CLI one beside it), the icon, whether to make a macOS ``.app`` (BUNDLE) and its
Info.plist, and the ``datas``/``binaries`` lists. The spec only ever builds for the OS it runs on
(PyInstaller does not cross-build); tests/packaging/test_targets.py asks for all three here.

``python packaging/targets.py --version`` prints the version from pyproject.toml (the Windows
installer's ``/DAppVersion=``); ``python packaging/targets.py win32`` prints that OS's target as JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "packaging"
OS_NAMES = ("win32", "darwin", "linux")

#: macOS: Qt 6.8+ (PySide6 >= 6.8) and current Chrome for Testing builds need macOS 12 (Monterey).
MACOS_MINIMUM = "12.0"
BUNDLE_IDENTIFIER = "com.mediadesk.MediaDesk"

#: Qt parts the console does not use, as parts of their destination paths in the bundle. Linux (the
#: list every Linux build is tested with): QML/Quick (pulled in by the virtual keyboard), PDF images,
#: embedded-device platforms, and the GTK3 platform theme (which alone brings GTK, GDK, ATK and cairo).
_DROP_LINUX = (
    "libQt6Pdf", "libQt6Qml", "libQt6Quick", "libQt6VirtualKeyboard", "libQt6EglFS", "libQt6EglFsKmsSupport",
    "plugins/platforminputcontexts/libqtvirtualkeyboardplugin", "plugins/imageformats/libqpdf",
    "plugins/platformthemes/libqgtk3", "plugins/egldeviceintegrations/", "plugins/generic/",
    "plugins/platforms/libqvnc", "plugins/platforms/libqlinuxfb", "plugins/platforms/libqeglfs",
    "plugins/platforms/libqvkkhrdisplay",
    "libgtk-3.", "libgdk-3.", "libatk-1.0.", "libatk-bridge-2.0.", "libatspi.", "libcairo-gobject.",
    "libcairo.", "libgdk_pixbuf-2.0.", "libepoxy.", "libpangocairo-", "libXcomposite.", "libXdamage.",
)
#: Windows and macOS: the same Qt modules under their names there (PySide6's DLLs sit in PySide6/,
#: its frameworks in PySide6/Qt/lib/); the GTK and embedded-device parts do not exist there.
_DROP_WIN32 = (
    "PySide6/Qt6Pdf", "PySide6/Qt6Qml", "PySide6/Qt6Quick", "PySide6/Qt6VirtualKeyboard",
    "plugins/platforminputcontexts/qtvirtualkeyboardplugin", "plugins/imageformats/qpdf",
)
_DROP_DARWIN = (
    "Qt/lib/QtPdf", "Qt/lib/QtQml", "Qt/lib/QtQuick", "Qt/lib/QtVirtualKeyboard",
    "plugins/platforminputcontexts/libqtvirtualkeyboardplugin", "plugins/imageformats/libqpdf",
)
#: Qt's own translations: only the languages the console ships.
KEEP_QT_LANGS = ("_en.qm", "_zh_CN.qm")


@dataclass(frozen=True)
class Executable:
    """One EXE of the build: ``name`` without the ``.exe``; ``console``: a console (terminal) program."""

    name: str
    console: bool


@dataclass(frozen=True)
class Target:
    os: str
    #: the node binary's file name in Playwright's ``driver/`` folder (``node.exe`` on Windows)
    node: str
    #: the executables, the GUI one first (the one a .app or a Start-menu entry starts)
    executables: tuple[Executable, ...]
    #: the one-folder build's folder under ``--distpath`` (COLLECT's name)
    folder: str
    #: the executables' icon (Windows ``.ico``) or the .app's (macOS ``.icns``); None on Linux, where
    #: packaging/build.py puts mediadesk.png/.svg and the .desktop entry next to the executable
    icon: Path | None
    #: make a macOS .app (PyInstaller's BUNDLE) around the one-folder build
    bundle: bool
    bundle_name: str | None = None
    bundle_identifier: str | None = None
    info_plist: dict[str, object] = field(default_factory=dict)
    #: (source, folder in the bundle) pairs for PyInstaller's Analysis
    datas: list[tuple[str, str]] = field(default_factory=list)
    binaries: list[tuple[str, str]] = field(default_factory=list)
    #: a bundled file whose destination path contains one of these is removed
    drop: tuple[str, ...] = ()
    #: where Qt's own translations sit in the bundle (all but KEEP_QT_LANGS are removed)
    qt_translations: str = "PySide6/Qt/translations/"

    @property
    def console(self) -> bool:
        """Whether the main (first) executable opens a console window."""
        return self.executables[0].console

    def wanted(self, dest: str) -> bool:
        """Whether a bundled file (by its destination path in the bundle) is kept."""
        dest = dest.replace("\\", "/")
        if any(part in dest for part in self.drop):
            return False
        return not (self.qt_translations in dest and not dest.endswith(KEEP_QT_LANGS))


def version(root: Path = ROOT) -> str:
    """The version in pyproject.toml."""
    with (root / "pyproject.toml").open("rb") as fh:
        return str(tomllib.load(fh)["project"]["version"])


def os_name(platform: str) -> str:
    """``sys.platform`` (``linux``, ``linux2``, ``win32``, ``darwin``) as one of :data:`OS_NAMES`."""
    name = "linux" if platform.startswith("linux") else platform
    if name not in OS_NAMES:
        raise ValueError(f"no packaging target for {platform!r} (known: {', '.join(OS_NAMES)})")
    return name


def playwright_driver() -> Path:
    """Playwright's ``driver/`` folder in the Python that runs the build (the wheel of the build's OS)."""
    import playwright

    return Path(playwright.__file__).resolve().parent / "driver"


def _certifi_datas() -> list[tuple[str, str]]:
    import certifi

    return [(certifi.where(), "certifi")]


def common_datas(root: Path, driver: Path) -> list[tuple[str, str]]:
    """What every OS bundles besides the node binary: our resources and Playwright's JS driver."""
    datas = [
        # resources_dir() in a frozen app is <_internal>/resources (mediadesk/config/workspace.py)
        (str(root / "resources" / "sites"), "resources/sites"),
        (str(root / "resources" / "demo"), "resources/demo"),
        (str(root / "resources" / "icons"), "resources/icons"),
        # Help > Documentation opens this folder (mediadesk/ui/window/menus.py docs_dir)
        (str(root / "docs"), "resources/docs"),
        (str(root / "mediadesk" / "sim" / "web_assets"), "mediadesk/sim/web_assets"),
        (str(root / "mediadesk" / "providers" / "web" / "js"), "mediadesk/providers/web/js"),
        # Alembic reads env.py and the revisions as files (mediadesk/store/migrations/__init__.py)
        (str(root / "mediadesk" / "store" / "migrations"), "mediadesk/store/migrations"),
        # Playwright's node driver: the JS package (with browsers.json, which finder.py reads) ...
        (str(driver / "package"), "playwright/driver/package"),
        (str(driver / "LICENSE"), "playwright/driver"),
    ]
    datas += [(str(p), "resources/i18n") for p in sorted((root / "resources" / "i18n").glob("*.qm"))]
    if (root / "resources" / "templates").is_dir():
        datas.append((str(root / "resources" / "templates"), "resources/templates"))
    return datas + _certifi_datas()


def target(platform: str = sys.platform, *, root: Path = ROOT, driver: Path | None = None) -> Target:
    """Every per-OS choice of the spec for ``platform`` (a ``sys.platform`` value)."""
    name = os_name(platform)
    driver = playwright_driver() if driver is None else driver
    datas = common_datas(root, driver)
    node = "node.exe" if name == "win32" else "node"
    # ... and the node binary itself, as a binary so it keeps its executable bit
    binaries = [(str(driver / node), "playwright/driver")]
    if name == "win32":
        # One folder, two EXEs sharing _internal/: the windowed console (Start menu, desktop icon) and a
        # console-subsystem twin for a terminal (a windowed EXE has no stdout: `MediaDesk.exe demo` would
        # print nothing). Different names, not different case: Windows file names ignore case.
        return Target(
            os=name, node=node, folder="mediadesk", icon=root / "packaging" / "mediadesk.ico", bundle=False,
            executables=(Executable("MediaDesk", console=False), Executable("mediadesk-cli", console=True)),
            datas=datas, binaries=binaries, drop=_DROP_WIN32, qt_translations="PySide6/translations/",
        )
    if name == "darwin":
        # A windowed executable inside MediaDesk.app; run from Terminal it still prints
        # (MediaDesk.app/Contents/MacOS/MediaDesk demo): macOS gives it the terminal's stdout.
        return Target(
            os=name, node=node, folder="mediadesk", icon=root / "packaging" / "mediadesk.icns", bundle=True,
            executables=(Executable("MediaDesk", console=False),),
            bundle_name="MediaDesk.app", bundle_identifier=BUNDLE_IDENTIFIER,
            info_plist={
                "CFBundleName": "MediaDesk",
                "CFBundleDisplayName": "MediaDesk",
                "CFBundleShortVersionString": version(root),
                "CFBundleVersion": version(root),
                "NSHighResolutionCapable": True,
                "LSMinimumSystemVersion": MACOS_MINIMUM,
                "LSApplicationCategoryType": "public.app-category.productivity",
            },
            datas=datas, binaries=binaries, drop=_DROP_DARWIN,
        )
    return Target(  # Linux: a console-subsystem `mediadesk`, as ever (packaging/build.py adds the .desktop)
        os=name, node=node, folder="mediadesk", icon=None, bundle=False,
        executables=(Executable("mediadesk", console=True),),
        datas=datas, binaries=binaries, drop=_DROP_LINUX,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description="Print a packaging target (or the version).")
    parser.add_argument("os", nargs="?", default=sys.platform, help="win32, darwin or linux (default: this one)")
    parser.add_argument("--version", action="store_true", help="print the version in pyproject.toml")
    args = parser.parse_args()
    if args.version:
        print(version())
        return 0
    print(json.dumps(asdict(target(args.os)), indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
