"""Everything MediaDesk does differently on Linux, macOS and Windows, in one place.

Each function picks its POSIX or Windows way once (``sys.platform`` checks that mypy follows, so
``mypy --platform win32`` and ``--platform darwin`` check the branch each system runs). Nothing else
in ``mediadesk`` branches on the system or calls the raw POSIX functions (``os.kill``, ``os.getpgid``,
``os.fchmod``, ``add_signal_handler``...): ``tests/test_platform_lint.py`` keeps it so. This package
imports nothing of MediaDesk, so every layer may use it; import its modules (this file imports
nothing, so that ``mediadesk.main`` pays only for the signals it needs).

- :mod:`.files`: private files and folders (modes on POSIX, the inherited ACL on Windows), owners,
  binary reads, read-only file systems, whether a file is still being written.
- :mod:`.processes`: pid liveness and start time (psutil, never ``os.kill(pid, 0)``), process groups,
  reaping, giving memory back.
- :mod:`.signals`: stop signals and console control events into an asyncio loop.
- :mod:`.sockets`: address reuse of listening sockets.
- :mod:`.console`: UTF-8 standard streams whatever the console's code page.
- :mod:`.browsers`: where each system keeps Chrome, Edge and Chromium, and starting one.
- :mod:`.reaper`: a browser that ends with MediaDesk: the parent-death signal on Linux, a Job Object on
  Windows, a watchdog process elsewhere.
"""
