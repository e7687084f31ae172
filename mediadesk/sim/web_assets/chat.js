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
  const runs = new Map(); // request_id -> {requestId, controller, stopRequested}
  let conversationId = newId();
  let runsEnded = 0;

  function newId() {
    if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
    return Date.now().toString(36) + Math.random().toString(36).slice(2);
  }

  function addMessage(kind, text) {
    const msg = document.createElement("div");
    msg.className = "msg " + kind;
    const content = document.createElement("div");
    content.className = "content";
    if (text) content.textContent = text;
    msg.appendChild(content);
    messages.appendChild(msg);
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
    note.textContent = message || "too many requests, please wait";
    messages.appendChild(note);
  }

  function sessionExpired(message) {
    showError(message || "session expired");
    document.querySelectorAll(".avatar").forEach((el) => el.remove());
    document.body.dataset.loggedIn = "false";
  }

  function updateBusy() {
    const busy = runs.size > 0;
    stopBtn.style.display = busy ? "" : "none";
    document.body.dataset.state = busy ? "generating" : "idle";
  }

  async function drain(reader) {
    try {
      while (!(await reader.read()).done) { /* the server ends the stream right after */ }
    } catch (e) { /* already closed */ }
  }

  async function generate(run, text) {
    const res = await openStream(run, { prompt: text, conversation_id: conversationId, request_id: run.requestId });
    if (!res.ok) {
      let body = {};
      try { body = await res.json(); } catch (e) { /* not JSON */ }
      const message = body.message || ("HTTP " + res.status);
      if (res.status === 401) sessionExpired(message);
      else if (res.status === 429 && body.style === "banner") showBusy(message);
      else showError(message);
      return "error";
    }
    const msg = addMessage("assistant", "");
    msg.dataset.requestId = run.requestId;
    const node = document.createTextNode("");
    const content = msg.querySelector(".content");
    content.appendChild(node);
    // answer_style "markdown": the page keeps the Markdown source and re-renders it as HTML per token
    const widget = document.body.dataset.codeWidget || "pre";
    const markdown = (document.body.dataset.answerStyle === "markdown" || (widget !== "pre" && widget[0] !== "$"))
                     && window.simchatMarkdown;
    let source = "";
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
          if (markdown) {
            source += ev.d;
            content.innerHTML = markdown.render(source);
          } else {
            node.appendData(ev.d);
          }
        } else if (ev.t === "start") {
          msg.dataset.generationId = ev.id;
        } else if (ev.t === "done" || ev.t === "stopped") {
          await drain(reader);
          return ev.t === "done" ? "completed" : "stopped";
        } else if (ev.t === "error") {
          if (ev.code === "session_expired") sessionExpired(ev.message); else showError(ev.message);
          await drain(reader);
          return "error";
        } // "ping": keep-alive, ignored
      }
    }
    if (run.stopRequested) return "stopped";
    showError("connection lost");
    return "error";
  }

  // --- transports (WebSimConfig.transport) ------------------------------------------------------
  // "ndjson": a chunked fetch of NDJSON lines. "sse": a fetch of text/event-stream ("data:" events).
  // "websocket": frames on one socket opened at load, tagged with the run's request id, ended by
  // {"t": "eof"}. SSE and WebSocket hand generate() the same NDJSON body as a Response.
  const transport = document.body.dataset.transport || "ndjson";
  const encoder = new TextEncoder();
  const socketRuns = new Map(); // request id -> {resolve, ctrl}
  let socket = null;

  function openSocket() {
    if (socket && socket.readyState <= WebSocket.OPEN) return socket;
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/ws");
    ws.addEventListener("message", (e) => {
      let ev;
      try { ev = JSON.parse(e.data); } catch (err) { return; }
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
    if (transport === "websocket") {
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
        ws.send(JSON.stringify(Object.assign({ t: "generate" }, body)));
      });
    }
    return fetch("/api/generate", init);
  }

  if (transport === "websocket") openSocket();

  async function send() {
    const text = promptBox.value;
    if (!text.trim()) return;
    promptBox.value = "";
    addMessage("user", text);
    const run = { requestId: newId(), controller: new AbortController(), stopRequested: false };
    runs.set(run.requestId, run);
    updateBusy();
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
