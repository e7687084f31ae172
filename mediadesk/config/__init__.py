"""Configuration: the config file's model and parser (``model``), its error messages (``messages``),
the round-trip editor (``edit``), the first-run template (``template``), and where things live
(``workspace``: data dir, profiles, evidence; ``location``: SQLite file or PostgreSQL URL).

Pure data and files: imports only ``core`` and ``files``."""
