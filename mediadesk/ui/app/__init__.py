"""Starting the console and holding one open workspace: the QApplication and qasync loop (``start``),
the single-instance hand-over, the workspace session, and the ONE bridge from core events to Qt signals."""
