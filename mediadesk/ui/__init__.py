"""The operator console (PySide6 + qasync). The only package allowed to import Qt."""
