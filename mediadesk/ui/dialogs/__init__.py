"""Dialogs and full-window pages: batch submit (with its staging preview), setup editor, close
question, welcome page, and config errors in the console's language."""
