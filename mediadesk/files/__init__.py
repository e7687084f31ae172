"""Files and locks, in one home: private files that never follow a planted link (``safe``), owned file
locks that name their holder (``locks``), the one-writer lock of a database file (``db_lock``).

The account and instance locks of the web lane build on ``locks`` in
:mod:`mediadesk.providers.web.profile_lock` (their errors are the web lane's)."""
