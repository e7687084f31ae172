"""One spec for three systems (packaging/mediadesk.spec, its choices in packaging/targets.py), checked here
for each of Windows, macOS and Linux without running PyInstaller: the node binary's name, the icon, the
executables and their console flag, the .app only on macOS, every bundled source present in this
checkout (but the other systems' node binary), the spec itself run against recording stand-ins for
PyInstaller's classes, the icons' files, and the Windows installer script's settings."""

from __future__ import annotations

import importlib.util
import re
import struct
import sys
import tomllib
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import certifi
import platformdirs
import platformdirs.windows
import playwright
import pytest

from mediadesk.config.workspace import Workspace

ROOT = Path(__file__).resolve().parents[2]
PKG = ROOT / "packaging"
SPEC = PKG / "mediadesk.spec"
ISS = PKG / "windows" / "mediadesk.iss"
OSES = ("win32", "darwin", "linux")
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _load_targets() -> ModuleType:
    # packaging/ is not a package (and `packaging` is also a PyPI distribution): load the file itself
    spec = importlib.util.spec_from_file_location("mediadesk_packaging_targets", PKG / "targets.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


targets = _load_targets()
DRIVER = Path(playwright.__file__).resolve().parent / "driver"


def _version() -> str:
    return str(tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"])


@pytest.mark.parametrize(("os_name", "node"), [("win32", "node.exe"), ("darwin", "node"), ("linux", "node")])
def test_the_node_binary_is_the_one_the_systems_playwright_wheel_ships(os_name: str, node: str) -> None:
    t = targets.target(os_name)
    assert t.node == node
    assert t.binaries == [(str(DRIVER / node), "playwright/driver")]


def test_linux_spellings_are_linux_and_an_unknown_system_is_refused() -> None:
    assert targets.target("linux2").os == "linux"
    with pytest.raises(ValueError, match="no packaging target for 'cygwin'"):
        targets.target("cygwin")


@pytest.mark.parametrize(("os_name", "icon"), [("win32", "mediadesk.ico"), ("darwin", "mediadesk.icns"),
                                               ("linux", None)])
def test_each_system_has_its_icon_in_the_checkout(os_name: str, icon: str | None) -> None:
    t = targets.target(os_name)
    if icon is None:  # Linux: the .desktop entry's PNG/SVG, copied next to the executable by build.py
        assert t.icon is None
        assert (PKG / "mediadesk.png").is_file() and (PKG / "mediadesk.svg").is_file()
    else:
        assert t.icon == PKG / icon
        assert t.icon.is_file() and t.icon.stat().st_size > 1000


def test_windows_has_a_windowed_app_and_a_console_cli_beside_it() -> None:
    t = targets.target("win32")
    assert [(x.name, x.console) for x in t.executables] == [("MediaDesk", False), ("mediadesk-cli", True)]
    assert t.console is False
    names = [x.name.lower() for x in t.executables]  # Windows file names ignore case
    assert len(set(names)) == len(names)
    assert (t.bundle, t.folder) == (False, "mediadesk")


def test_macos_has_a_windowed_app_bundle_with_its_info_plist() -> None:
    t = targets.target("darwin")
    assert [(x.name, x.console) for x in t.executables] == [("MediaDesk", False)]
    assert (t.bundle, t.bundle_name) == (True, "MediaDesk.app")
    assert re.fullmatch(r"[A-Za-z0-9-]+(\.[A-Za-z0-9-]+){2,}", t.bundle_identifier)
    assert t.info_plist["NSHighResolutionCapable"] is True
    assert t.info_plist["LSMinimumSystemVersion"] == targets.MACOS_MINIMUM == "12.0"
    assert t.info_plist["CFBundleShortVersionString"] == _version()


def test_linux_is_as_before_a_console_executable_without_bundle() -> None:
    t = targets.target("linux")
    assert [(x.name, x.console) for x in t.executables] == [("mediadesk", True)]
    assert (t.console, t.bundle, t.bundle_name, t.info_plist) == (True, False, None, {})


@pytest.mark.parametrize("os_name", OSES)
def test_only_macos_makes_a_bundle(os_name: str) -> None:
    assert targets.target(os_name).bundle is (os_name == "darwin")


@pytest.mark.parametrize("os_name", OSES)
def test_every_bundled_source_exists_here_but_another_systems_node(os_name: str) -> None:
    t = targets.target(os_name)
    missing = [src for src, _ in [*t.datas, *t.binaries] if not Path(src).exists()]
    here_node = "node.exe" if sys.platform == "win32" else "node"
    if t.node == here_node:
        assert missing == []
    else:  # the other systems' wheel has it; its name was checked above
        assert missing == [str(DRIVER / t.node)]
    dests = {dest for _, dest in t.datas}
    assert {"resources/sites", "resources/demo", "resources/i18n", "resources/docs", "playwright/driver/package",
            "mediadesk/store/migrations", "certifi"} <= dests
    assert (certifi.where(), "certifi") in t.datas
    assert any(src.endswith("mediadesk_zh_CN.qm") for src, _ in t.datas)


def test_every_system_bundles_the_same_data() -> None:
    lists = [targets.target(os_name).datas for os_name in OSES]
    assert lists[0] == lists[1] == lists[2]


@pytest.mark.parametrize(
    ("os_name", "dropped", "kept"),
    [
        ("linux", ["PySide6/Qt/lib/libQt6Pdf.so.6", "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
                   "PySide6/Qt/translations/qtbase_de.qm", "libgtk-3.so.0"],
         ["PySide6/Qt/lib/libQt6Widgets.so.6", "PySide6/Qt/translations/qtbase_zh_CN.qm",
          "PySide6/Qt/plugins/platforms/libqxcb.so"]),
        ("win32", ["PySide6\\Qt6Pdf.dll", "PySide6\\Qt6QmlModels.dll", "PySide6\\translations\\qtbase_de.qm",
                   "PySide6\\plugins\\platforminputcontexts\\qtvirtualkeyboardplugin.dll"],
         ["PySide6\\Qt6Widgets.dll", "PySide6\\translations\\qtbase_zh_CN.qm", "PySide6\\opengl32sw.dll",
          "PySide6\\plugins\\platforms\\qwindows.dll"]),
        ("darwin", ["PySide6/Qt/lib/QtQml.framework/Versions/A/QtQml", "PySide6/Qt/translations/qt_fr.qm",
                    "PySide6/Qt/plugins/imageformats/libqpdf.dylib"],
         ["PySide6/Qt/lib/QtWidgets.framework/Versions/A/QtWidgets", "PySide6/Qt/translations/qtbase_en.qm",
          "PySide6/Qt/plugins/platforms/libqcocoa.dylib"]),
    ],
)
def test_the_qt_parts_left_out_are_left_out_and_no_more(os_name: str, dropped: list[str], kept: list[str]) -> None:
    t = targets.target(os_name)
    assert [d for d in dropped if t.wanted(d)] == []
    assert [k for k in kept if not t.wanted(k)] == []
    assert [dest for _, dest in [*t.datas, *t.binaries] if not t.wanted(dest)] == []  # ours all stay


# --- the spec itself, run against stand-ins for PyInstaller's classes -------------------------------------


class _PyInstaller:
    """Records what the spec builds; Analysis returns a few Qt files the spec's filter must sort."""

    SAMPLE = {
        "linux": ("PySide6/Qt/lib/libQt6Pdf.so.6", "PySide6/Qt/lib/libQt6Core.so.6"),
        "win32": ("PySide6\\Qt6Pdf.dll", "PySide6\\Qt6Core.dll"),
        "darwin": ("PySide6/Qt/lib/QtPdf.framework/Versions/A/QtPdf",
                   "PySide6/Qt/lib/QtCore.framework/Versions/A/QtCore"),
    }

    def __init__(self, os_name: str) -> None:
        self.os_name = os_name
        self.calls: dict[str, list[SimpleNamespace]] = {}

    def _record(self, kind: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> SimpleNamespace:
        made = SimpleNamespace(kind=kind, args=args, kwargs=kwargs)
        self.calls.setdefault(kind, []).append(made)
        return made

    def names(self) -> dict[str, Any]:
        def analysis(*args: Any, **kwargs: Any) -> SimpleNamespace:
            made = self._record("Analysis", args, kwargs)
            drop, keep = self.SAMPLE[self.os_name]
            made.binaries = [(drop, "/src", "BINARY"), (keep, "/src", "BINARY")]
            made.datas = [(dest, src, "DATA") for src, dest in kwargs["datas"]]
            made.pure, made.scripts = [], ["entry"]
            return made

        def maker(kind: str) -> Any:
            return lambda *args, **kwargs: self._record(kind, args, kwargs)

        return {"Analysis": analysis, **{k: maker(k) for k in ("PYZ", "EXE", "COLLECT", "BUNDLE")}}


def _run_spec(os_name: str, monkeypatch: pytest.MonkeyPatch) -> _PyInstaller:
    pyi = _PyInstaller(os_name)
    # the spec puts packaging/ first and takes it off again (another test of this process may have put it there)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(PKG)])
    monkeypatch.setitem(sys.modules, "targets", targets)  # what `from targets import target` finds
    monkeypatch.setattr(sys, "platform", os_name)
    namespace = {"__name__": "__main__", "SPECPATH": str(PKG), **pyi.names()}
    exec(compile(SPEC.read_text(encoding="utf-8"), str(SPEC), "exec"), namespace)
    return pyi


@pytest.mark.parametrize("os_name", OSES)
def test_the_spec_builds_each_systems_executables_bundle_and_file_lists(
    os_name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = targets.target(os_name)
    calls = _run_spec(os_name, monkeypatch).calls
    assert str(PKG) not in sys.path  # the Analysis must not find packaging/'s scripts as modules
    (analysis,) = calls["Analysis"]
    assert analysis.kwargs["binaries"] == t.binaries and analysis.kwargs["datas"] == t.datas
    assert analysis.args[0] == [str(PKG / "entry.py")]
    assert [b[0] for b in analysis.binaries] == [_PyInstaller.SAMPLE[os_name][1]]  # the spec filtered
    exes = calls["EXE"]
    assert [(e.kwargs["name"], e.kwargs["console"]) for e in exes] == [(x.name, x.console) for x in t.executables]
    assert [e.kwargs["icon"] for e in exes] == [[str(t.icon)] if t.icon else None] * len(exes)
    assert all(e.kwargs["exclude_binaries"] is True for e in exes)  # one folder, not one file
    (collect,) = calls["COLLECT"]
    assert list(collect.args[: len(exes)]) == exes and collect.kwargs["name"] == "mediadesk"
    if os_name == "darwin":
        (bundle,) = calls["BUNDLE"]
        assert bundle.args == (collect,)
        assert bundle.kwargs["name"] == "MediaDesk.app" and bundle.kwargs["icon"] == str(PKG / "mediadesk.icns")
        assert bundle.kwargs["info_plist"]["NSHighResolutionCapable"] is True
        assert bundle.kwargs["bundle_identifier"] == t.bundle_identifier
    else:
        assert "BUNDLE" not in calls


# --- the icons ---------------------------------------------------------------------------------------------


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_ico_holds_every_size_from_16_to_256() -> None:
    data = (PKG / "mediadesk.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", data[:6])
    assert (reserved, kind) == (0, 1)
    sizes = []
    for i in range(count):
        w, h, _, _, _, _, length, offset = struct.unpack("<BBBBHHII", data[6 + 16 * i: 22 + 16 * i])
        w, h = w or 256, h or 256
        assert offset + length <= len(data)
        frame = data[offset: offset + length]
        if frame[:8] == PNG_MAGIC:
            assert _png_size(frame) == (w, h)
        else:  # a BMP frame: its header's width (the height counts the mask too)
            assert struct.unpack("<i", frame[4:8])[0] == w
        sizes.append((w, h))
    assert sorted(sizes) == [(s, s) for s in (16, 24, 32, 48, 64, 128, 256)]


def test_the_icns_has_its_magic_and_entries_up_to_1024() -> None:
    data = (PKG / "mediadesk.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    entries: dict[str, tuple[int, int]] = {}
    pos = 8
    while pos < len(data):
        kind, length = data[pos: pos + 4].decode("ascii"), struct.unpack(">I", data[pos + 4: pos + 8])[0]
        assert length >= 8 and pos + length <= len(data)
        if kind != "TOC ":
            entries[kind] = _png_size(data[pos + 8: pos + length])
        pos += length
    expected = {"ic07": 128, "ic08": 256, "ic09": 512, "ic10": 1024, "ic11": 32, "ic12": 64, "ic13": 256,
                "ic14": 512}
    assert entries == {k: (v, v) for k, v in expected.items()}


# --- the Windows installer script ----------------------------------------------------------------------


def _iss() -> str:
    return ISS.read_text(encoding="utf-8-sig")


def _section(name: str) -> list[str]:
    lines, inside = [], False
    for line in _iss().splitlines():
        if line.startswith("["):
            inside = line.strip() == f"[{name}]"
        elif inside and line.strip() and not line.startswith((";", "#")):
            lines.append(line.strip())
    return lines


def _setup() -> dict[str, str]:
    return dict(line.split("=", 1) for line in _section("Setup"))


def _define(name: str) -> str:
    m = re.search(rf'^\s*#define {name} "([^"]*)"', _iss(), re.M)
    assert m, f"no #define {name}"
    return m.group(1)


def test_the_installer_is_per_user_without_admin() -> None:
    setup = _setup()
    assert setup["PrivilegesRequired"] == "lowest"
    assert "PrivilegesRequiredOverridesAllowed" not in setup  # never offers to elevate
    assert setup["DefaultDirName"] == r"{localappdata}\Programs\MediaDesk"
    assert not any("{pf}" in v or "{commonpf}" in v or "{autopf}" in v for v in setup.values())


def test_the_installer_version_is_pyprojects() -> None:
    assert _define("AppVersion") == _version() == targets.version()
    assert _setup()["AppVersion"] == "{#AppVersion}"


def test_the_installer_installs_the_windows_build_with_start_menu_desktop_icon_and_uninstaller() -> None:
    win = targets.target("win32")
    assert _define("AppExe") == f"{win.executables[0].name}.exe"
    assert f'#define DistDir SourcePath + "..\\..\\dist\\{win.folder}"' in _iss()
    setup = _setup()
    assert setup["Uninstallable"] == "yes"
    assert setup["UninstallDisplayIcon"] == r"{app}\{#AppExe}"
    assert (ISS.parent / setup["SetupIconFile"].replace("{#SourcePath}", "").replace("\\", "/")).resolve() == win.icon
    icons = _section("Icons")
    assert any(i.startswith(r'Name: "{autoprograms}\{#AppName}"') for i in icons)
    desktop = [i for i in icons if "{autodesktop}" in i]
    assert len(desktop) == 1 and "Tasks: desktopicon" in desktop[0]
    (task,) = [t for t in _section("Tasks") if t.startswith('Name: "desktopicon"')]
    assert "Flags: unchecked" in task  # optional, and off unless chosen
    assert any("recursesubdirs" in f and "{#DistDir}" in f for f in _section("Files"))


def test_the_installer_speaks_english_and_simplified_chinese() -> None:
    text = _iss()
    assert 'Name: "en"; MessagesFile: "compiler:Default.isl"' in text
    zh = re.findall(r'^Name: "chinesesimplified"; MessagesFile: "([^"]+)"', text, re.M)
    assert zh and all(f.endswith("ChineseSimplified.isl") for f in zh)
    for key in ("DataFormCaption", "DataFormText", "DeleteDataCheck", "DeleteDataFailed"):
        assert f"en.{key}=" in text and f"chinesesimplified.{key}=" in text


def test_the_uninstaller_keeps_the_data_folder_unless_ticked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The folder the uninstaller offers to delete is the app's data dir as Windows' platformdirs gives it."""
    local = tmp_path / "Local"
    monkeypatch.delenv("MEDIADESK_DATA_DIR", raising=False)
    monkeypatch.setattr(platformdirs, "PlatformDirs", platformdirs.windows.Windows)
    monkeypatch.setattr(platformdirs.windows, "get_win_folder", lambda csidl: str(local))
    data_dir = Workspace.resolve().data_dir
    rel = data_dir.relative_to(local.resolve())
    assert _define("DataDir") == "{localappdata}\\" + "\\".join(rel.parts)
    code = _iss().split("[Code]", 1)[1]
    assert "Check.Checked := False;" in code and "DeleteData := Result and Check.Checked;" in code
    assert "if UninstallSilent()" in code  # a silent uninstall keeps it
    assert re.search(r"usPostUninstall\) and DeleteData then\s+if not DelTree\(DataDir", code)
    assert "[UninstallDelete]" not in _iss()
