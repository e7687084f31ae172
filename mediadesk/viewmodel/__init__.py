"""View models without Qt: what the console shows, kept and derived in plain Python.

Nothing here imports PySide6 (an import-linter contract checks it), so the logic runs and is
tested headless; ``mediadesk.ui`` puts thin Qt models on top.
"""

from __future__ import annotations
