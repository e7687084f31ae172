"""The Setup editor's parts: the field model, per-entry forms, the entry lists, the Test runner and
the write-through to config.toml (the dialog itself is :mod:`mediadesk.ui.dialogs.setup_editor`)."""
