"""Lanes, gates, reaper, retry/cancel policy and the event bus (asyncio, no Qt).

:class:`Scheduler` is the facade both faces drive; :class:`Intake` (``scheduler.intake``) is how a
batch gets in and :class:`Checks` how a config's endpoints and accounts are probed, tested and
logged in.
"""

from mediadesk.scheduler.checks import Checks
from mediadesk.scheduler.events import EventBus, EventType
from mediadesk.scheduler.intake import Intake
from mediadesk.scheduler.lane import Lane, LaneTiming
from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["Checks", "EventBus", "EventType", "Intake", "Lane", "LaneTiming", "Scheduler"]
