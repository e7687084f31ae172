"""Qt item models: thin adapters over the Qt-free mirrors in :mod:`mediadesk.viewmodel`."""
