// SimChat page logic. Streams an answer from POST /api/generate (NDJSON lines) into the last
// ".msg.assistant .content". The page adds no whitespace of its own: tokens are appended to one
// text node, so the element's text is exactly what the server sent.
"use strict";
(() => {
  const messages = document.getElementById("messages");
  const promptBox = document.getElementById("prompt");
  const sendBtn = document.querySelector("button.send");
  const stopBtn = document.querySelector("button.stop");
  const newChatBtn = document.querySelector("button.new-chat");
  const runs = new Map(); // request_id -> {requestId, controller, stopRequested, shown, widget, render}
  // Personas (personas.js): a stand-in when it is not loaded.
  const P = window.simchatPersonas || { has: () => false, avatar: () => null, statusWidget: () => null,
                                        shownAnswer: (s) => s };
  // Site personas (sites.js): a real site's request, stream and landmarks; a stand-in when not loaded.
  const S = window.simchatSites || { stream: null, mark: () => {}, showThinking: () => {} };
  let conversationId = newId();
  let runsEnded = 0;

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  // A turn at the end of the message list (before `before`, e.g. a run's status widget, if given).
  function addMessage(kind, text, before) {
    const msg = document.createElement("div");
    msg.className = "msg " + kind;
    S.mark(msg, kind);
    const icon = P.avatar(kind);
    if (icon) msg.appendChild(icon);
    const content = document.createElement("div");
    content.className = "content";
    S.mark(content, kind + "-content");
    if (text) content.textContent = text;
    msg.appendChild(content);
    if (before && before.parentNode === messages) messages.insertBefore(msg, before);
    else messages.appendChild(msg);
    return msg;
  }

  function showError(message) {
    addMessage("error", message || "error");
  }

  // A busy / rate-limit refusal shown as a banner, as real sites do (not as a chat message).
  function showBusy(message) {
    const note = document.createElement("div");
    note.className = "notice busy";
    note.setAttribute("role", "alert");
    S.mark(note, "banner");
    note.textContent = message || "too many requests, please wait";
    messages.appendChild(note);
  }

  function sessionExpired(message) {
    showError(message || "session expired");
    document.querySelectorAll(".avatar").forEach((el) => el.remove());
    document.body.dataset.loggedIn = "false";
  }

  // Busy while a run is shown: from send, or (status_widget) from its "start" event.
  function updateBusy() {
    const busy = [...runs.values()].some((r) => r.shown);
    stopBtn.style.display = busy ? "" : "none";
    document.body.dataset.state = busy ? "generating" : "idle";
  }

  async function drain(reader) {
    try {
      while (!(await reader.read()).done) { /* the server ends the stream right after */ }
    } catch (e) { /* already closed */ }
  }

  async function generate(run, text) {
    const body = { prompt: text, conversation_id: conversationId, request_id: run.requestId };
    if (P.attachment) { // paste_limit: the text of the file chosen for this send goes with it
      const attached = await P.attachment();
      if (attached !== null) body.attachment = attached;
    }
    const res = await openStream(run, body);
    if (!res.ok) {
      let body = {};
      try { body = await res.json(); } catch (e) { /* not JSON */ }
      const message = body.message || ("HTTP " + res.status);
      if (res.status === 401) sessionExpired(message);
      else if (res.status === 429 && body.style === "banner") showBusy(message);
      else showError(message);
      return "error";
    }
    // The assistant turn: made at once, or (status_widget) at the "start" event, or (late_render) only
    // when the whole answer is rendered after the stream.
    const late = P.has("late_render");
    let msg = null;
    let content = null;
    let node = null;
    const turn = () => {
      if (msg) return;
      msg = addMessage("assistant", "", run.widget);
      msg.dataset.requestId = run.requestId;
      content = msg.querySelector(".content");
      node = document.createTextNode("");
      content.appendChild(node);
    };
    if (!late && !P.has("status_widget")) turn();
    // answer_style "markdown": the page keeps the Markdown source and re-renders it as HTML per token
    const widget = document.body.dataset.codeWidget || "pre";
    const markdown = (document.body.dataset.answerStyle === "markdown" || (widget !== "pre" && widget[0] !== "$"))
                     && window.simchatMarkdown;
    let source = "";
    let thinking = ""; // a site persona's "think" events
    let generationId = "";
    // late_render: the whole turn, render_delay_ms after the stream's end (send() awaits it after
    // the page went idle).
    const renderLate = (always) => {
      const delay = Number(document.body.dataset.renderDelayMs) || 0;
      const conversation = conversationId;
      run.render = new Promise((resolve) => setTimeout(() => {
        if (conversation === conversationId && (always || source)) {
          turn();
          if (generationId) msg.dataset.generationId = generationId;
          if (markdown) content.innerHTML = markdown.render(P.shownAnswer(source)); else node.appendData(source);
        }
        resolve();
      }, delay));
    };
    const reader = res.body.getReader();
    const decoder = new TextDecoder("utf-8");
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line) continue;
        const ev = JSON.parse(line);
        if (ev.t === "token") {
          source += ev.d;
          if (late) continue;
          turn();
          if (markdown) content.innerHTML = markdown.render(P.shownAnswer(source)); else node.appendData(ev.d);
        } else if (ev.t === "think") {
          thinking += ev.d;
          if (late) continue;
          turn();
          S.showThinking(msg, content, thinking);
        } else if (ev.t === "start") {
          generationId = ev.id || "";
          if (!run.shown) { run.shown = true; updateBusy(); }
          if (!late) {
            turn();
            if (generationId) msg.dataset.generationId = generationId;
          }
        } else if (ev.t === "done" || ev.t === "stopped") {
          if (late) renderLate(ev.t === "done");
          await drain(reader);
          return ev.t === "done" ? "completed" : "stopped";
        } else if (ev.t === "error") {
          if (ev.code === "session_expired") sessionExpired(ev.message); else showError(ev.message);
          await drain(reader);
          return "error";
        } // "ping": keep-alive, ignored
      }
    }
    if (run.stopRequested) {
      if (late) renderLate(false);
      return "stopped";
    }
    showError("connection lost");
    return "error";
  }

  // --- transports (WebSimConfig.transport) ------------------------------------------------------
  // "ndjson": a chunked fetch of NDJSON lines. "sse": a fetch of text/event-stream ("data:" events).
  // "websocket": frames on one socket opened at load, tagged with the run's request id, ended by
  // {"t": "eof"}. "binary_ws": the same events as binary frames on such a socket (an opcode byte, then
  // fields: a 4-byte big-endian length and UTF-8 bytes). SSE and the sockets hand generate() the same
  // NDJSON body as a Response.
  const transport = document.body.dataset.transport || "ndjson";
  const binary = transport === "binary_ws";
  const encoder = new TextEncoder();
  const utf8 = new TextDecoder("utf-8");
  const socketRuns = new Map(); // request id -> {resolve, ctrl}
  let socket = null;
  const OPS = { 1: "generate", 2: "start", 3: "token", 4: "done", 5: "stopped", 6: "error", 7: "http_error",
                8: "eof", 9: "ping" };

  function encodeFrame(op, fields) {
    const parts = fields.map((f) => encoder.encode(String(f)));
    const out = new Uint8Array(1 + parts.reduce((n, p) => n + 4 + p.length, 0));
    const view = new DataView(out.buffer);
    out[0] = op;
    let at = 1;
    for (const p of parts) {
      view.setUint32(at, p.length); // big-endian
      out.set(p, at + 4);
      at += 4 + p.length;
    }
    return out.buffer;
  }

  // A binary frame as the event the JSON socket would have sent.
  function decodeFrame(buf) {
    const bytes = new Uint8Array(buf);
    const view = new DataView(buf);
    const f = [];
    let at = 1;
    while (at + 4 <= bytes.length) {
      const n = view.getUint32(at);
      f.push(utf8.decode(bytes.subarray(at + 4, at + 4 + n)));
      at += 4 + n;
    }
    const t = OPS[bytes[0]];
    if (!t) throw new Error("unknown opcode " + bytes[0]);
    const ev = { t, rid: f[0] };
    if (t === "token") ev.d = f[1];
    else if (t === "error") { ev.code = f[1]; ev.message = f[2]; }
    else if (t === "http_error") { ev.status = Number(f[1]); ev.body = JSON.parse(f[2] || "{}"); }
    return ev;
  }

  function openSocket() {
    if (socket && socket.readyState <= WebSocket.OPEN) return socket;
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host +
                             (binary ? "/api/wsb" : "/api/ws"));
    if (binary) ws.binaryType = "arraybuffer";
    ws.addEventListener("message", (e) => {
      let ev;
      try { ev = binary ? decodeFrame(e.data) : JSON.parse(e.data); } catch (err) { return; }
      const r = socketRuns.get(ev.rid);
      if (!r) return;
      if (ev.t === "http_error") {
        socketRuns.delete(ev.rid);
        r.resolve(new Response(JSON.stringify(ev.body || {}), { status: ev.status }));
        return;
      }
      if (!r.ctrl) {
        r.resolve(new Response(new ReadableStream({ start: (c) => { r.ctrl = c; } }), { status: 200 }));
      }
      if (ev.t === "eof") { socketRuns.delete(ev.rid); r.ctrl.close(); return; }
      delete ev.rid;
      r.ctrl.enqueue(encoder.encode(JSON.stringify(ev) + "\n"));
    });
    ws.addEventListener("close", () => {
      for (const [rid, r] of socketRuns) {
        socketRuns.delete(rid);
        if (r.ctrl) r.ctrl.error(new Error("socket closed")); else r.reject(new Error("socket closed"));
      }
    });
    socket = ws;
    return ws;
  }

  async function openStream(run, body) {
    if (S.stream) return S.stream(run, body);
    const init = {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: run.controller.signal,
    };
    if (transport === "sse") {
      const res = await fetch("/api/generate/sse", init);
      if (!res.ok) return res;
      const reader = res.body.getReader();
      const decoder = new TextDecoder("utf-8");
      let buf = "";
      return new Response(new ReadableStream({
        async pull(ctrl) {
          for (;;) {
            let i;
            while ((i = buf.indexOf("\n\n")) >= 0) {
              const block = buf.slice(0, i);
              buf = buf.slice(i + 2);
              const data = block.split("\n").filter((l) => l.startsWith("data:"))
                .map((l) => l.slice(5).replace(/^ /, "")).join("\n");
              if (data) { ctrl.enqueue(encoder.encode(data + "\n")); return; }
            }
            const { value, done } = await reader.read();
            if (done) { ctrl.close(); return; }
            buf += decoder.decode(value, { stream: true });
          }
        },
        cancel() { reader.cancel(); },
      }), { status: 200 });
    }
    if (transport === "websocket" || binary) {
      const ws = openSocket();
      if (ws.readyState !== WebSocket.OPEN) {
        await new Promise((ok, fail) => {
          ws.addEventListener("open", ok, { once: true });
          ws.addEventListener("close", () => fail(new Error("socket closed")), { once: true });
        });
      }
      return new Promise((resolve, reject) => {
        const r = { resolve, reject, ctrl: null };
        socketRuns.set(body.request_id, r);
        run.controller.signal.addEventListener("abort", () => {
          socketRuns.delete(body.request_id);
          const err = new DOMException("aborted", "AbortError");
          try { if (r.ctrl) r.ctrl.error(err); else reject(err); } catch (e) { /* already ended */ }
        });
        if (binary) ws.send(encodeFrame(1, [body.request_id, body.conversation_id, body.prompt]));
        else ws.send(JSON.stringify(Object.assign({ t: "generate" }, body)));
      });
    }
    return fetch("/api/generate", init);
  }

  if (transport === "websocket" || binary) openSocket();

  async function send() {
    const text = promptBox.value;
    if (!text.trim()) return;
    promptBox.value = "";
    addMessage("user", text);
    const run = { requestId: newId(), controller: new AbortController(), stopRequested: false,
                  shown: !P.has("status_widget"), widget: null, render: null };
    runs.set(run.requestId, run);
    if (P.has("status_widget")) run.widget = P.statusWidget(() => stopRun(run));
    updateBusy();
    window.dispatchEvent(new CustomEvent("simchat:run-start", { detail: { requestId: run.requestId } }));
    let status = "error";
    try {
      status = await generate(run, text);
    } catch (err) {
      if (run.stopRequested) {
        status = "stopped";
      } else {
        showError("connection lost: " + err);
      }
    } finally {
      runs.delete(run.requestId);
      if (run.widget) run.widget.remove();
      updateBusy();
      if (run.render) await run.render; // late_render: idle first, the turn after render_delay_ms
      runsEnded += 1;
      document.body.dataset.runsEnded = String(runsEnded);
      document.body.dataset.lastStatus = status;
      updateBusy();
      window.dispatchEvent(new CustomEvent("simchat:run-end", { detail: { requestId: run.requestId, status } }));
    }
  }

  async function stopRun(run) {
    if (run.stopRequested) return;
    run.stopRequested = true;
    try {
      await fetch("/api/stop", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ request_id: run.requestId }),
      });
    } catch (e) {
      run.controller.abort();
      return;
    }
    // The server ends the stream with a "stopped" event; abort only if it does not.
    setTimeout(() => { if (runs.has(run.requestId)) run.controller.abort(); }, 3000);
  }

  function stopAll() {
    for (const run of runs.values()) stopRun(run);
  }

  // Page mode send_block_ms: the handler sends, then keeps the page busy (a click that does not return).
  const blockMs = Number(document.body.dataset.sendBlockMs) || 0;
  sendBtn.addEventListener("click", () => {
    send();
    if (blockMs > 0) { const end = performance.now() + blockMs; while (performance.now() < end) { /* busy */ } }
  });
  // Page mode overlay: a "What's New" dialog over the whole page after login.
  const overlay = document.body.dataset.overlay;
  if (overlay === "escape" || overlay === "sticky") {
    const backdrop = document.createElement("div");
    backdrop.className = "modal-backdrop";
    backdrop.innerHTML = '<div class="modal" role="dialog" aria-modal="true" aria-label="What\'s New">' +
      "<h2>What's New in SimChat</h2><p>Faster answers, new models and a fresh look.</p>" +
      '<button type="button" class="dialog-close">Okay, let\'s go!</button></div>';
    document.body.appendChild(backdrop);
    const close = () => { backdrop.remove(); document.removeEventListener("keydown", onKey, true); };
    const onKey = (e) => { if (e.key === "Escape" && overlay === "escape") close(); };
    backdrop.querySelector(".dialog-close").addEventListener("click", close);
    document.addEventListener("keydown", onKey, true);
  }
  stopBtn.addEventListener("click", stopAll);
  newChatBtn.addEventListener("click", () => {
    stopAll();
    messages.replaceChildren();
    conversationId = newId();
  });
  promptBox.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      send();
    }
  });
})();
