#!/bin/sh
# Installs the packaged app's menu entry for the current user: run it from the unpacked folder
# (it sits next to the `mediadesk` executable). Writes ~/.local/share/applications/mediadesk.desktop
# with this folder's absolute paths, and the icon next to it.
set -eu
APPDIR=$(cd "$(dirname "$0")" && pwd)
DEST=${XDG_DATA_HOME:-$HOME/.local/share}
mkdir -p "$DEST/applications" "$DEST/icons/hicolor/256x256/apps"
cp "$APPDIR/mediadesk.png" "$DEST/icons/hicolor/256x256/apps/mediadesk.png"
sed -e "s|^Exec=mediadesk|Exec=\"$APPDIR/mediadesk\"|" "$APPDIR/mediadesk.desktop" > "$DEST/applications/mediadesk.desktop"
chmod 0644 "$DEST/applications/mediadesk.desktop"
echo "installed $DEST/applications/mediadesk.desktop"
