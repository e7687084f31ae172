"""Lanes, gates, reaper, retry/cancel policy and the event bus (asyncio, no Qt)."""

from mediadesk.scheduler.events import EventBus, EventType
from mediadesk.scheduler.lane import Lane, LaneTiming
from mediadesk.scheduler.scheduler import Scheduler

__all__ = ["EventBus", "EventType", "Lane", "LaneTiming", "Scheduler"]
