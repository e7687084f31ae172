"""Configuration: the config file's model and parser (``model``), how its errors are told (``errors``:
pydantic's errors in TOML words; ``messages``: the message templates, translatable),
the round-trip editor (``edit``), the first-run template (``template``), and where things live
(``workspace``: data dir, profiles, evidence; ``location``: SQLite file or PostgreSQL URL).

Pure data and files: imports only ``core`` and ``files``."""
