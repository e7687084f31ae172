// SimChat personas (WebSimConfig.personas, <body data-personas="footer icon_avatar ...">): the page
// behaving like chat UIs we did not write. This file does what stands apart from a run (the footer
// and welcome block, the noise traffic) and gives chat.js the pieces a run uses (has(), avatar(),
// statusWidget(), and the deepseek persona's stream, thinking block and shown answer). Loaded before
// chat.js; markdown.js reads data-personas itself.
"use strict";
window.simchatPersonas = (() => {
  const body = document.body;
  const active = new Set((body.dataset.personas || "").split(/[\s,]+/).filter(Boolean));
  const has = (name) => active.has(name);
  const messages = document.getElementById("messages");

  // icon_avatar: an icon-font ligature first in each turn (its text shows on a page without the font).
  function avatar(kind) {
    if (!has("icon_avatar") || (kind !== "user" && kind !== "assistant")) return null;
    const span = document.createElement("span");
    span.className = "material-symbols-outlined avatar-icon";
    span.setAttribute("aria-hidden", "true");
    span.textContent = kind === "assistant" ? "smart_toy" : "person";
    return span;
  }

  // status_widget: a status element (not a button) at the end of the message list; a click stops.
  function statusWidget(onStop) {
    const widget = document.createElement("div");
    widget.className = "run-status";
    widget.setAttribute("role", "status");
    widget.innerHTML = '<span class="dot" aria-hidden="true"></span><span class="label">Stop</span>';
    widget.addEventListener("click", onStop);
    messages.appendChild(widget);
    return widget;
  }

  // footer: a welcome block above the list, a disclaimer below the composer that a framework-like
  // re-render replaces (same text, a new node) whenever the message list changes, and at run end.
  if (has("footer")) {
    const welcome = document.createElement("div");
    welcome.className = "welcome";
    welcome.innerHTML = "<h2>How can I help you today?</h2>";
    messages.before(welcome);
    const footer = document.createElement("div");  // a plain div, as the big sites draw their disclaimer
    footer.className = "disclaimer";
    footer.textContent = "AI can make mistakes. Check important info.";
    document.querySelector("footer.composer").after(footer);
    const rerender = () => {
      const current = document.querySelector("div.disclaimer");
      if (current) current.replaceWith(current.cloneNode(true));
    };
    new MutationObserver(rerender).observe(messages, { childList: true, subtree: true, characterData: true });
    window.addEventListener("simchat:run-end", rerender);
  }

  // noise: traffic unrelated to the answer, as real sites have it.
  if (has("noise")) {
    let alive = true;
    const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

    // (a) a long poll, again at once after each answer (a pause after a failure); not while hidden.
    let polling = false;
    async function pollLoop() {
      if (polling) return;
      polling = true;
      try {
        while (alive && !document.hidden) {
          try {
            const res = await fetch("/api/poll", { cache: "no-store" });
            await res.text();
            if (!res.ok) await pause(250);
          } catch (e) {
            await pause(250);
          }
        }
      } finally {
        polling = false;
      }
    }

    // (b) telemetry at send and every 300 ms while a run is active.
    let runsActive = 0;
    let timer = null;
    function beacon(event) {
      const payload = JSON.stringify({ event, at: Date.now(), path: location.pathname, runs: runsActive });
      try { navigator.sendBeacon("/api/telemetry", payload); } catch (e) { /* not queued */ }
      fetch("/api/telemetry", { method: "POST", keepalive: true, body: payload })
        .then((r) => r.text()).catch(() => { /* telemetry is best effort */ });
    }
    window.addEventListener("simchat:run-start", () => {
      runsActive += 1;
      beacon("send");
      if (!timer) timer = setInterval(() => beacon("tick"), 300);
    });
    window.addEventListener("simchat:run-end", () => {
      runsActive = Math.max(0, runsActive - 1);
      if (!runsActive && timer) { clearInterval(timer); timer = null; }
    });

    // (c) a presence socket the server closes every ~700 ms: reconnect at once (after a pause if it
    // never opened, e.g. the site is down).
    let presence = null;
    function connectPresence() {
      if (!alive || presence) return;
      const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/api/presence");
      let opened = false;
      ws.addEventListener("open", () => { opened = true; });
      ws.addEventListener("message", (e) => {
        try { JSON.parse(e.data); } catch (err) { /* not ours to mind */ }
      });
      ws.addEventListener("close", () => {
        if (presence === ws) presence = null;
        if (!alive) return;
        if (opened) connectPresence(); else setTimeout(connectPresence, 250);
      });
      presence = ws;
    }

    document.addEventListener("visibilitychange", () => { if (!document.hidden) pollLoop(); });
    window.addEventListener("pagehide", () => {
      alive = false;
      if (presence) presence.close();
    });
    window.addEventListener("pageshow", (e) => {
      if (!e.persisted) return;
      alive = true;
      pollLoop();
      connectPresence();
    });
    pollLoop();
    connectPresence();
  }

  // deepseek: the page talks to DeepSeek's API (POST /api/v0/chat/completion, SSE of patch events on a
  // {"response": ...} document; ds_new_format: {"choice": {"delta": {"kind", "chunk"}}} events) and hands
  // chat.js the same NDJSON events the other transports do, "think" events included.
  const encoder = new TextEncoder();
  function deepseekStream(run, body) {
    const asked = {
      chat_session_id: body.conversation_id, parent_message_id: null, prompt: body.prompt, ref_file_ids: [],
      thinking_enabled: true, search_enabled: false, client_stream_id: body.request_id,
    };
    return fetch("/api/v0/chat/completion", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(asked),
      signal: run.controller.signal,
    }).then((res) => (res.ok ? deepseekEvents(res) : res));
  }

  function deepseekEvents(res) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder("utf-8");
    let buf = "";
    let kind = null; // the last fragment's type
    let path = null; // the path of the last patch
    let status = "done";
    const out = [];
    const piece = (type, text) => {
      if (typeof text === "string" && text) out.push({ t: type === "THINK" ? "think" : "token", d: text });
    };
    const fragments = (list) => {
      for (const f of list || []) { kind = f.type; piece(kind, f.content); }
    };
    const patch = (p, o, v) => {
      if (p === "response" && o === "BATCH") {
        for (const sub of v || []) if (sub.p === "status" && sub.v === "INCOMPLETE") status = "stopped";
      } else if (p === "response/fragments" && o === "APPEND") {
        fragments(v);
      } else if (p === "response/fragments/-1/content") {
        piece(kind, v);
      }
    };
    const onEvent = (name, data) => {
      if (name === "ready") { out.push({ t: "start", id: "" }); return; }
      if (name === "close") { out.push({ t: status }); return; }
      if (name === "error") {
        const e = JSON.parse(data || "{}");
        out.push({ t: "error", code: e.code, message: e.message });
        return;
      }
      if (name !== "message" || !data) return;
      const ev = JSON.parse(data);
      if (ev.choice) { // ds_new_format
        const d = ev.choice.delta;
        if (d) piece(d.kind === "reasoning" ? "THINK" : "RESPONSE", d.chunk);
        if (ev.choice.finished === false) status = "stopped";
        return;
      }
      if (ev.p !== undefined) { path = ev.p; patch(ev.p, ev.o, ev.v); return; }
      if (path === null && ev.v && ev.v.response) { fragments(ev.v.response.fragments); return; }
      patch(path, "APPEND", ev.v);
    };
    return new Response(new ReadableStream({
      async pull(ctrl) {
        for (;;) {
          if (out.length) { ctrl.enqueue(encoder.encode(JSON.stringify(out.shift()) + "\n")); return; }
          let i;
          if ((i = buf.indexOf("\n\n")) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let name = "message";
            const data = [];
            for (const line of block.split("\n")) {
              if (line.startsWith("event:")) name = line.slice(6).trim();
              else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
            }
            onEvent(name, data.join("\n"));
            continue;
          }
          const { value, done } = await reader.read();
          if (done) { ctrl.close(); return; }
          buf += decoder.decode(value, { stream: true });
        }
      },
      cancel() { reader.cancel(); },
    }), { status: 200 });
  }

  // deepseek: the thinking, in a collapsible block above the answer (made on its first piece).
  function showThinking(msg, content, text) {
    let box = msg.querySelector(".ds-think-content");
    if (!box) {
      const block = document.createElement("div");
      block.className = "ds-think";
      block.innerHTML = '<details open><summary>Thought for a moment</summary><div class="ds-think-content"></div>' +
        "</details>";
      msg.insertBefore(block, content);
      box = block.querySelector(".ds-think-content");
    }
    box.textContent = text;
  }

  // ds_page_differs: the page shows a sentence its stream never carried.
  const ONLY_HERE = "\n\nThis sentence is on the page only.";
  const shownAnswer = (source) => (has("ds_page_differs") && source ? source + ONLY_HERE : source);

  return { has, avatar, statusWidget, deepseekStream: has("deepseek") ? deepseekStream : null, showThinking,
           shownAnswer };
})();
