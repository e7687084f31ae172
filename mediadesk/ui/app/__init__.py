"""Starting the console and holding one open workspace: the QApplication and qasync loop (``start``),
the single-instance hand-over, the workspace session (``workspace_session``) and switching to another
(``workspace_switch``), and the ONE bridge from core events to Qt signals."""
