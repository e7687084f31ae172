// SimChat personas (WebSimConfig.personas, <body data-personas="footer icon_avatar ...">): the page
// behaving like chat UIs we did not write. This file does what stands apart from a run (the footer
// and welcome block, the noise traffic) and gives chat.js the pieces a run uses (has(), avatar(),
// statusWidget(), the shown answer). A site persona's stream, landmarks and thinking block are in
// sites.js. Loaded before chat.js; markdown.js reads data-personas itself.
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

  // ds_page_differs: the page shows a sentence its stream never carried.
  const ONLY_HERE = "\n\nThis sentence is on the page only.";
  const shownAnswer = (source) => (has("ds_page_differs") && source ? source + ONLY_HERE : source);

  // paste_limit: a file input beside the prompt box (hidden, as sites keep theirs behind a paperclip). The
  // chosen file is read at once; chat.js sends its text with the next run (`attachment`) and empties the input.
  let attaching = null; // the chosen file's text, being read
  const fileInput = has("paste_limit") ? document.createElement("input") : null;
  if (fileInput) {
    fileInput.type = "file";
    fileInput.className = "attach";
    fileInput.hidden = true;
    fileInput.addEventListener("change", () => {
      const file = fileInput.files && fileInput.files[0];
      attaching = file ? file.text() : null;
    });
    document.getElementById("prompt").after(fileInput);
  }
  // The text of the file chosen for this send (null: none), taken once.
  async function attachment() {
    const reading = attaching;
    attaching = null;
    fileInput.value = "";
    return reading ? await reading : null;
  }

  return { has, avatar, statusWidget,
           shownAnswer, attachment: fileInput ? attachment : null };
})();
