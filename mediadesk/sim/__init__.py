"""Simulators shipped with MediaDesk: real HTTP servers on 127.0.0.1 for the demo, the tests and benchmarks.

They stand in for the callees (an OpenAI-compatible API, a chat web site) so every failure the
scheduler must survive (429 quotas, 5xx, hangs, resets, logouts) can be produced on demand.

``web_server`` is the chat-site simulator (its page is in ``web_assets``); ``_server`` is the
loopback server both simulators are. The API simulator, top to bottom (each module imports only
those below it; ``lint-imports`` checks it):

* ``api_cli``: flags of ``mediadesk sim api``, on top of ``api_server``: the API simulator's handlers.
* ``_api_controls``: ``set_quota``/``set_outage`` and ``/admin/quota``, ``/admin/outage``; API-key labels.
* ``api_config``: :class:`~mediadesk.sim.api_config.ApiSimConfig`, the settings, checked when built.
* ``_api_requests`` (body and ``[[sim:...]]`` markers), ``_api_stats`` (counters), ``_api_hostile``
  (hostile answers), ``_api_outages`` (the outage state machine).
* ``_admin_json``: admin body checks and answers.
"""
