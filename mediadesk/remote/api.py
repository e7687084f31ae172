"""The HTTP API (FastAPI): routes over the scheduler facade and the store's reader.

Reads go to the reading thread (:class:`~mediadesk.remote.context.RemoteContext`); actions call the
scheduler on the event loop, exactly what the console's buttons call. The OpenAPI document is
served at ``/openapi.json`` (behind the token like everything else); no HTML docs page, whose
scripts would come from elsewhere.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import APIRouter, Body, FastAPI, HTTPException, Query, Request
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response, StreamingResponse

from mediadesk.core.batch import DEFAULT_MAX_FILE_BYTES
from mediadesk.remote import intake, metrics
from mediadesk.remote.context import RemoteContext
from mediadesk.remote.schemas import (
    AccountOut,
    AccountSwitch,
    CapacityOut,
    CountOut,
    LaneOut,
    LaneSelector,
    LogLineOut,
    ResolveIn,
    RowErrorOut,
    StatusOut,
    SubmitOut,
    TaskDetailOut,
    TaskIds,
    TaskOut,
    TaskPage,
)
from mediadesk.remote.stream import STREAM_KINDS, EventStreams
from mediadesk.scheduler.duplicates import Duplicates
from mediadesk.store.errors import StorageError

API_VERSION = "1"
PAGE_MAX = 1000



#: FastAPI's built-in OpenTelemetry (newer versions) off: nothing about this API's requests leaves the
#: machine, whatever OTEL_* variables the environment holds (and no per-request cost).
_NO_TELEMETRY: dict[str, Any] = {"telemetry": {
    "tracing": False, "metrics": False, "logs": False, "operation_spans": False, "auto_configure": False,
}} if "telemetry" in inspect.signature(FastAPI).parameters else {}


def create_app(ctx: RemoteContext, run_times: metrics.RunTimes, snapshot: Any, streams: EventStreams) -> FastAPI:
    """``snapshot()`` -> :class:`~mediadesk.remote.metrics.Snapshot` (taken on the loop per scrape)."""
    app = FastAPI(
        title="MediaDesk remote API", version=API_VERSION, docs_url=None, redoc_url=None,
        openapi_url="/openapi.json", **_NO_TELEMETRY,
        description="Watch and steer a running MediaDesk: submit batches, follow tasks, act on lanes, "
                    "accounts and exceptions. Every request needs `Authorization: Bearer <token>`.",
    )
    sched = ctx.scheduler
    v1 = APIRouter(prefix="/v1")

    def openapi() -> dict[str, Any]:
        # the bearer scheme declared for every operation (checked by TokenGuard, not per route)
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description,
                                 routes=app.routes)
            schema.setdefault("components", {})["securitySchemes"] = {"bearer": {
                "type": "http", "scheme": "bearer",
                "description": "the token named by [remote] token_env / token_keyring"}}
            schema["security"] = [{"bearer": []}]
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]

    @app.exception_handler(StorageError)
    async def _storage(_request: Request, exc: StorageError) -> JSONResponse:
        return JSONResponse({"detail": f"storage failed: {exc}"}, status_code=503)

    def lane_stats() -> list[LaneOut]:
        return [LaneOut.of(ctx.lanes[name]) for name in sorted(ctx.lanes)]

    def lane_names() -> set[str]:
        names = {f"api:{p.name}" for p in sched.config.profiles if p.kind == "api"}
        return names | {f"web:{a.name}" for a in sched.config.accounts}

    def account(name: str) -> str:
        if name not in {a.name for a in sched.config.accounts}:
            raise HTTPException(404, f"no account {name!r}")
        return name

    # ------------------------------------------------------------------ status
    @v1.get("/status", tags=["status"])
    async def status() -> StatusOut:
        counts = await ctx.counts()
        by_profile: dict[str, dict[str, int]] = {}
        for (profile, state), n in counts.items():
            by_profile.setdefault(profile, {})[state] = n
        err = sched.storage_error
        return StatusOut(counts=by_profile, lanes=lane_stats(),
                         storage_error=None if err is None else str(err), desktops=len(sched.desktops()))

    @v1.get("/lanes", tags=["lanes"])
    async def lanes() -> list[LaneOut]:
        return lane_stats()

    @v1.get("/endpoints", tags=["lanes"], summary="Gates and breakers of every API endpoint and web account")
    async def endpoints() -> list[CapacityOut]:
        return [CapacityOut.of(k, v) for k, v in sched.capacity_views().items()]

    def _pause(sel: LaneSelector, paused: bool) -> CountOut:
        if sel.lane is not None and sel.lane not in ("api", "web") and sel.lane not in lane_names():
            raise HTTPException(404, f"no lane {sel.lane!r} (api, web, or one of {', '.join(sorted(lane_names()))})")
        sched.pause(sel.lane, paused)
        return CountOut(changed=1)

    @v1.post("/lanes/pause", tags=["lanes"], summary="Pause every lane, a kind (api | web) or one lane")
    async def pause(sel: Annotated[LaneSelector, Body()] = LaneSelector()) -> CountOut:  # noqa: B008
        return _pause(sel, True)

    @v1.post("/lanes/resume", tags=["lanes"])
    async def resume(sel: Annotated[LaneSelector, Body()] = LaneSelector()) -> CountOut:  # noqa: B008
        return _pause(sel, False)

    # ------------------------------------------------------------------ accounts
    @v1.get("/accounts", tags=["accounts"])
    async def accounts() -> list[AccountOut]:
        states = sched.account_states()
        out = []
        for a in sched.config.accounts:
            enabled, health, err = states.get(a.name, (a.enabled, "unknown", None))
            out.append(AccountOut(account=a.name, enabled=enabled, health=health, last_error=err))
        return out

    @v1.post("/accounts/{name}/enable", tags=["accounts"])
    async def enable(name: str) -> CountOut:
        sched.set_account_enabled(account(name), True)
        return CountOut(changed=1)

    @v1.post("/accounts/{name}/disable", tags=["accounts"])
    async def disable(name: str, body: Annotated[AccountSwitch, Body()] = AccountSwitch()) -> CountOut:  # noqa: B008
        sched.set_account_enabled(account(name), False, cancel_running=body.cancel_running)
        return CountOut(changed=1)

    @v1.post("/accounts/{name}/pause", tags=["accounts"], summary="Pause an account's lane (kept across restarts)")
    async def pause_account(name: str) -> CountOut:
        sched.pause(f"web:{account(name)}", True)
        return CountOut(changed=1)

    @v1.post("/accounts/{name}/resume", tags=["accounts"])
    async def resume_account(name: str) -> CountOut:
        sched.pause(f"web:{account(name)}", False)
        return CountOut(changed=1)

    # ------------------------------------------------------------------ tasks
    @v1.get("/tasks", tags=["tasks"], summary="Tasks in submit order, filtered, one page at a time")
    async def tasks(
        state: Annotated[list[str] | None, Query()] = None,
        profile: Annotated[list[str] | None, Query()] = None,
        batch: str | None = None,
        lane: str | None = None,
        after: Annotated[int, Query(ge=0, description="next_after of the previous page")] = 0,
        limit: Annotated[int, Query(ge=1, le=PAGE_MAX)] = 100,
    ) -> TaskPage:
        recs = await ctx.read(lambda r: r.query(states=state or (), profiles=profile or (), batch=batch, lane=lane,
                                                after_seq=after, limit=limit))
        return TaskPage(tasks=[TaskOut.of(t) for t in recs],
                        next_after=recs[-1].seq if len(recs) == limit else None)

    @v1.get("/tasks/{task_id}", tags=["tasks"], summary="One task with its result and its log")
    async def task(task_id: str) -> TaskDetailOut:
        rec, lines = await ctx.read(lambda r: (r.get(task_id), r.logs(task_id)))
        if rec is None:
            raise HTTPException(404, f"no task {task_id!r}")
        return TaskDetailOut(**TaskOut.of(rec).model_dump(), system=rec.system, result=rec.result,
                             log=[LogLineOut.of(ln) for ln in lines])

    @v1.post("/tasks/cancel", tags=["tasks"], summary="Pending: canceled at once; running: stopped, then canceled")
    async def cancel(body: TaskIds) -> CountOut:
        return CountOut(changed=sched.cancel(body.task_ids))

    @v1.post("/tasks/retry", tags=["tasks"], summary="Failed or canceled tasks back to pending (fresh budget)")
    async def retry(body: TaskIds) -> CountOut:
        return CountOut(changed=sched.retry(body.task_ids))

    @v1.post(
        "/batches", tags=["tasks"], summary="Submit a batch (JSONL, CSV or XLSX body; one task per row)",
        responses={422: {"model": SubmitOut, "description": "no valid row"},
                   409: {"model": SubmitOut, "description": "valid rows, refused whole (full queue, missing key)"}},
        openapi_extra={"requestBody": {"required": True, "content": {
            "application/x-ndjson": {"schema": {"type": "string"}, "example":
                                     '{"profile": "writer", "prompt": "Say hi"}\n'},
            "text/csv": {"schema": {"type": "string"}},
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": {
                "schema": {"type": "string", "format": "binary"}}}}},
    )
    async def submit(
        request: Request, name: Annotated[str | None, Query(max_length=200)] = None,
        duplicates: Annotated[Duplicates, Query(description="rows that repeat a finished task or a row above: "
                                                "skip them, run them again, or reuse the earlier answer")]
        = Duplicates.SKIP,
    ) -> Response:
        size = int(request.headers.get("content-length") or 0)
        if size > DEFAULT_MAX_FILE_BYTES:
            raise HTTPException(413, f"a batch is at most {DEFAULT_MAX_FILE_BYTES} bytes")
        chunks, total = [], 0
        async for chunk in request.stream():
            total += len(chunk)
            if total > DEFAULT_MAX_FILE_BYTES:
                raise HTTPException(413, f"a batch is at most {DEFAULT_MAX_FILE_BYTES} bytes")
            chunks.append(chunk)
        out = await intake.submit_jsonl(sched, b"".join(chunks), name or "remote",
                                        content_type=request.headers.get("content-type"), duplicates=duplicates)
        doc = SubmitOut(batch=out.batch, task_ids=out.task_ids, added=out.added, existing=out.existing,
                        errors=[RowErrorOut(line=e.line, message=e.message, excerpt=e.excerpt) for e in out.errors],
                        refused=out.refused)
        code = 409 if out.refused else 422 if not out.task_ids else 200
        return JSONResponse(doc.model_dump(), status_code=code)

    @v1.get("/events", tags=["status"], response_class=StreamingResponse,
            summary="Server-Sent Events: the webhook events and task_changed, opening with a ready event",
            responses={200: {"content": {"text/event-stream": {}}}})
    async def events(
        request: Request,
        events: Annotated[list[str] | None, Query(description="kinds, repeated or comma-separated")] = None,
        limit: Annotated[int | None, Query(ge=0, description="end after this many events")] = None,
    ) -> StreamingResponse:
        kinds = {k.strip() for item in (events or STREAM_KINDS) for k in item.split(",") if k.strip()}
        unknown = kinds - set(STREAM_KINDS)
        if unknown:
            raise HTTPException(422, f"unknown event kinds {sorted(unknown)}: use {', '.join(STREAM_KINDS)}")
        return StreamingResponse(streams.stream(frozenset(kinds), limit, request.is_disconnected),
                                 media_type="text/event-stream", headers={"X-Accel-Buffering": "no"})

    # ------------------------------------------------------------------ exceptions
    @v1.get("/exceptions", tags=["exceptions"], summary="Failed tasks a person must judge, oldest first")
    async def exceptions(include_resolved: bool = False) -> list[TaskOut]:
        return [TaskOut.of(r) for r in sched.exceptions(include_resolved)]

    @v1.post("/exceptions/{task_id}/resolve", tags=["exceptions"],
             summary="retry | reroute (to profile) | answer (by hand) | drop, with a note")
    async def resolve(task_id: str, body: ResolveIn) -> TaskOut:
        try:
            rec = sched.resolve_exception(task_id, body.action, body.note, answer=body.answer, profile=body.profile)
        except ValueError as exc:
            raise HTTPException(404 if str(exc).startswith("no task") else 409, str(exc)) from None
        return TaskOut.of(rec)

    app.include_router(v1)

    @app.get("/metrics", tags=["status"], response_class=Response,
             responses={200: {"content": {metrics.CONTENT_TYPE: {}}}}, summary="Prometheus text exposition")
    async def scrape() -> Response:
        snap = snapshot()
        body = await ctx.read(lambda r: metrics.render(snap, r, run_times))
        return Response(body, headers={"Content-Type": metrics.CONTENT_TYPE})

    return app
