// SimChat site personas (<body data-personas="claude">, one site at a time): the page behaving like one
// real chat site. Per site (SITES below): the request its page sends (route, headers, body, as
// mediadesk/sim/_site_streams.py reads it), a decoder of its stream back into the page's NDJSON events
// (start, think, token, done, stopped, error), and its DOM landmarks: the ids, classes and attributes the
// real site's public selectors (ARIA roles, data-testid, ids) look for, put on the page's own elements.
// chat.js calls stream() instead of its transports, mark() on every part it makes, showThinking() for
// "think" events. Loaded before personas.js and chat.js; markdown.js renders a site persona's answers.
"use strict";
window.simchatSites = (() => {
  const encoder = new TextEncoder();
  const utf8 = new TextDecoder("utf-8");
  const uuid = () => (window.crypto && crypto.randomUUID ? crypto.randomUUID()
                      : Date.now().toString(36) + Math.random().toString(36).slice(2));
  const jsonPost = (url, asked) => ({ url, headers: { "Content-Type": "application/json" },
                                      body: JSON.stringify(asked) });

  // --- the sites ------------------------------------------------------------------------------------
  // request(body): {url, headers, body} for the simulator's {prompt, conversation_id, request_id};
  // framing: "sse" (frames {event, data}), "connect" (frames {flags, data}) or "json" (chunked JSON, one
  // value a line, frames {data}); decoder(out): a run's
  // frame handler, pushing NDJSON events to `out`; landmarks: role -> {id, cls, attrs, text} (roles:
  // prompt, send, stop, newChat, account: the page's fixed parts; user, assistant, error and their
  // "-content"; thinking, thinking-content, banner: the busy / limit notice).
  const SITES = {
    // chat.deepseek.com: patch events on a {"response": ...} document (ds_new_format: {"choice": ...}).
    deepseek: {
      request: (b) => jsonPost("/api/v0/chat/completion", {
        chat_session_id: b.conversation_id, parent_message_id: null, prompt: b.prompt, ref_file_ids: [],
        thinking_enabled: true, search_enabled: false, client_stream_id: b.request_id,
      }),
      framing: "sse",
      decoder: deepseekDecoder,
      landmarks: {
        prompt: { id: "chat-input" },
        assistant: { cls: "ds-message" }, "assistant-content": { cls: "ds-markdown" },
        thinking: { cls: "ds-think", text: "已深度思考" }, "thinking-content": { cls: "ds-think-content" },
        banner: { cls: "ds-toast" }, error: { cls: "ds-toast" },
      },
    },
    // claude.ai: the Messages streaming events (thinking block, then text block).
    claude: {
      request: (b) => jsonPost(`/api/organizations/${ORG}/chat_conversations/${b.conversation_id}/completion`, {
        prompt: b.prompt, parent_message_uuid: "00000000-0000-4000-8000-000000000000", timezone: "UTC",
        locale: "en-US", attachments: [], files: [], sync_sources: [], rendering_mode: "messages",
        turn_message_uuids: { human_message_uuid: uuid(), assistant_message_uuid: b.request_id },
      }),
      framing: "sse",
      decoder: claudeDecoder,
      landmarks: {
        prompt: { cls: "ProseMirror", attrs: { "aria-label": "Write your prompt to Claude", "data-testid": "chat-input" } },
        send: { attrs: { "aria-label": "Send message" } },
        stop: { attrs: { "aria-label": "Stop response" } },
        newChat: { attrs: { "aria-label": "New chat" } },
        account: { attrs: { "data-testid": "user-menu-button" } },
        user: { attrs: { "data-testid": "user-message" } },
        assistant: { cls: "font-claude-response", attrs: { "data-is-streaming": "false" } },
        "assistant-content": { cls: "standard-markdown" },
        thinking: { attrs: { "data-testid": "thinking-block" }, text: "Thought process" },
      },
    },
    // www.kimi.com: Connect RPC, 5-byte envelopes of JSON messages, the last one flagged end-of-stream.
    kimi: {
      request: (b) => ({
        url: "/apiv2/kimi.gateway.chat.v1.ChatService/Chat",
        headers: { "Content-Type": "application/connect+json", "Connect-Protocol-Version": "1" },
        body: envelope({
          scenario: "SCENARIO_K2D5", chat_id: b.conversation_id, tools: [], options: { thinking: true },
          message: { id: b.request_id, parent_id: "", role: "user", scenario: "SCENARIO_K2D5",
                     blocks: [{ message_id: "", text: { content: b.prompt } }] },
        }),
      }),
      framing: "connect",
      decoder: kimiDecoder,
      landmarks: {
        prompt: { cls: "chat-input-editor" },
        send: { cls: "send-button" },
        stop: { cls: "stop-message-btn" },
        newChat: { cls: "new-chat-btn" },
        account: { cls: "user-info" },
        user: { cls: "chat-content-item chat-content-item-user" },
        assistant: { cls: "chat-content-item chat-content-item-assistant" },
        "assistant-content": { cls: "markdown" },
        thinking: { cls: "thinking-container", text: "思考已完成" }, "thinking-content": { cls: "thinking-content" },
        banner: { cls: "kimi-toast" }, error: { cls: "kimi-toast" },
      },
    },
    // chatgpt.com: SSE "delta v1" (patch operations, paths that are the empty string).
    chatgpt: {
      request: (b) => jsonPost("/backend-api/f/conversation", {
        action: "next", conversation_id: b.conversation_id, parent_message_id: "client-created-root",
        model: "auto", timezone_offset_min: 0, supported_encodings: ["v1"], supports_buffering: true,
        messages: [{ id: b.request_id, author: { role: "user" }, create_time: Date.now() / 1000,
                     content: { content_type: "text", parts: [b.prompt] }, metadata: {} }],
      }),
      framing: "sse",
      decoder: chatgptDecoder,
      landmarks: {
        prompt: { id: "prompt-textarea" },
        send: { id: "composer-submit-button", attrs: { "data-testid": "send-button", "aria-label": "Send prompt" } },
        stop: { attrs: { "data-testid": "stop-button", "aria-label": "Stop streaming" } },
        newChat: { attrs: { "data-testid": "create-new-chat-button", "aria-label": "New chat" } },
        account: { attrs: { "data-testid": "accounts-profile-button" } },
        user: { attrs: { "data-message-author-role": "user" } },
        assistant: { attrs: { "data-message-author-role": "assistant" } },
        "assistant-content": { cls: "markdown prose" },
        thinking: { attrs: { "data-testid": "reasoning-summary" }, text: "Thought for a few seconds" },
      },
    },
    // www.doubao.com: named SSE events of content blocks; text before the deep-think block's end is thinking.
    doubao: {
      request: (b) => jsonPost("/samantha/chat/completion", {
        messages: [{ content: JSON.stringify({ text: b.prompt }), content_type: 2001, attachments: [], references: [] }],
        completion_option: { is_regen: false, with_suggest: false, need_create_conversation: true, launch_stage: 1,
                             use_deep_think: true, event_id: "0" },
        conversation_id: "0", local_conversation_id: b.conversation_id, local_message_id: b.request_id,
      }),
      framing: "sse",
      decoder: doubaoDecoder,
      landmarks: {
        prompt: { cls: "semi-input-textarea", attrs: { "data-testid": "chat_input_input" } },
        send: { id: "flow-end-msg-send", attrs: { "data-testid": "chat_input_send_button" } },
        stop: { attrs: { "data-testid": "chat_input_local_break_button" } },
        newChat: { attrs: { "data-testid": "create_conversation_button" } },
        account: { attrs: { "data-testid": "chat_header_avatar_button" } },
        user: { attrs: { "data-testid": "send_message" } },
        assistant: { attrs: { "data-testid": "receive_message" } },
        "assistant-content": { attrs: { "data-testid": "message_text_content" } },
        thinking: { cls: "deep-think-container-Qx3vLm", text: "已深度思考" },
        banner: { cls: "semi-toast-content" }, error: { cls: "semi-toast-content" },
      },
    },
    // chat.qwen.ai: OpenAI-like SSE deltas whose "phase" says thinking ("think") or answer.
    qwen: {
      request: (b) => jsonPost(`/api/v2/chat/completions?chat_id=${encodeURIComponent(b.conversation_id)}`, {
        stream: true, incremental_output: true, chat_id: b.conversation_id, chat_mode: "normal", model: "qwen3-max",
        parent_id: null, timestamp: Math.floor(Date.now() / 1000),
        messages: [{ fid: b.request_id, parentId: null, childrenIds: [], role: "user", content: b.prompt,
                     user_action: "chat", files: [], models: ["qwen3-max"], chat_type: "t2t",
                     feature_config: { thinking_enabled: true, output_schema: "phase" } }],
      }),
      framing: "sse",
      decoder: qwenDecoder,
      landmarks: {
        prompt: { id: "chat-input" },
        send: { id: "send-message-button", attrs: { "aria-label": "Send" } },
        stop: { id: "stop-message-button", attrs: { "aria-label": "Stop" } },
        newChat: { id: "sidebar-new-chat-button", attrs: { "aria-label": "New Chat" } },
        account: { attrs: { "aria-label": "User Menu" } },
        user: { cls: "chat-user" },
        assistant: { cls: "chat-assistant" },
        "assistant-content": { cls: "response-message-content markdown-prose" },
        thinking: { cls: "qwen-thinking-panel", text: "思考结束" },
        banner: { cls: "qwen-toast" }, error: { cls: "qwen-toast" },
      },
    },
    // chatglm.cn: SSE whose every event holds each part's whole content so far (snapshots).
    chatglm: {
      request: (b) => jsonPost("/chatglm/backend-api/assistant/stream", {
        assistant_id: "65940acff94777010aa6b796", conversation_id: b.conversation_id,
        meta_data: { is_test: false, input_question_type: "xxxx", channel: "", draft_id: "", platform: "pc",
                     chat_mode: "zero", request_id: b.request_id },
        messages: [{ role: "user", content: [{ type: "text", text: b.prompt }] }],
      }),
      framing: "sse",
      decoder: chatglmDecoder,
      landmarks: {
        prompt: { cls: "input-box-textarea" },
        send: { cls: "enter-icon-container" },
        stop: { cls: "stop-generate-btn" },
        newChat: { cls: "new-session-button" },
        account: { cls: "user-avatar" },
        user: { cls: "question-item" }, "user-content": { cls: "question-txt" },
        assistant: { cls: "answer-item" }, "assistant-content": { cls: "markdown-body" },
        thinking: { cls: "thinking-block", text: "已完成思考" }, "thinking-content": { cls: "thinking-content" },
        banner: { cls: "el-message" }, error: { cls: "el-message" },
      },
    },
    // gemini.google.com: Google's batchexecute envelope; each "wrb.fr" part holds the whole answer so far.
    gemini: {
      request: (b) => {
        const inner = new Array(80).fill(null); // the positional request: prompt, language, ids, ...
        inner[0] = [b.prompt, 0, null, null, null, null, 0];
        inner[1] = ["en"];
        inner[2] = [b.conversation_id, "", "", null, null, null, null, null, null, ""];
        inner[59] = b.request_id;
        const reqid = 100000 + Math.floor(Math.random() * 800000);
        return {
          url: `/_/BardChatUi/data/assistant.lamda.BardFrontendService/StreamGenerate?hl=en&_reqid=${reqid}&rt=c`,
          headers: { "Content-Type": "application/x-www-form-urlencoded;charset=UTF-8", "X-Same-Domain": "1" },
          body: new URLSearchParams({ "f.req": JSON.stringify([null, JSON.stringify(inner)]), at: "sim" }).toString(),
        };
      },
      framing: "json",
      decoder: geminiDecoder,
      landmarks: {
        prompt: { cls: "ql-editor textarea", attrs: { "aria-label": "Enter a prompt here" } },
        send: { cls: "send-button", attrs: { "aria-label": "Send message" } },
        stop: { attrs: { "aria-label": "Stop response" } },
        newChat: { attrs: { "data-test-id": "new-chat-button", "aria-label": "New chat" } },
        account: { attrs: { "aria-label": "Google Account: SimChat" } },
        user: { cls: "user-query-container" }, "user-content": { cls: "query-text" },
        assistant: { cls: "model-response-text" }, "assistant-content": { cls: "markdown markdown-main-panel" },
        thinking: { cls: "thoughts-container", text: "Show thinking" }, "thinking-content": { cls: "thoughts-content" },
        banner: { cls: "mat-mdc-snack-bar-label" }, error: { cls: "mat-mdc-snack-bar-label" },
      },
    },
  };
  const ORG = "5f0c1e52-0000-4000-8000-000000000000"; // the simulator's one "organization" (claude)

  const personas = (document.body.dataset.personas || "").split(/[\s,]+/);
  const name = personas.find((p) => Object.prototype.hasOwnProperty.call(SITES, p)) || null;
  const site = name ? SITES[name] : null;

  // --- landmarks ------------------------------------------------------------------------------------
  function mark(el, role) {
    const l = site && el && site.landmarks[role];
    if (!l) return;
    if (l.id) el.id = l.id;
    if (l.cls) el.classList.add(...l.cls.split(" "));
    for (const [k, v] of Object.entries(l.attrs || {})) el.setAttribute(k, v);
  }
  // The page's fixed parts, once chat.js has taken hold of them (it finds the prompt box by its own id).
  if (site) {
    document.addEventListener("DOMContentLoaded", () => {
      const fixed = { prompt: "#prompt", send: "button.send", stop: "button.stop", newChat: "button.new-chat",
                      account: ".avatar" };
      for (const [role, sel] of Object.entries(fixed)) document.querySelectorAll(sel).forEach((el) => mark(el, role));
    });
  }

  // The thinking, in a collapsible block above the answer (made on its first piece).
  function showThinking(msg, content, text) {
    let box = msg.querySelector(".sim-think-content");
    if (!box) {
      const block = document.createElement("div");
      block.className = "sim-think";
      const summary = (site && site.landmarks.thinking && site.landmarks.thinking.text) || "Thought for a moment";
      block.innerHTML = "<details open><summary></summary><div class=\"sim-think-content\"></div></details>";
      block.querySelector("summary").textContent = summary;
      box = block.querySelector(".sim-think-content");
      mark(block, "thinking");
      mark(box, "thinking-content");
      msg.insertBefore(block, content);
    }
    box.textContent = text;
  }

  // --- the stream: one reader loop, the site's frames to NDJSON events ---------------------------------
  function envelope(message, flags = 0) {
    const data = encoder.encode(JSON.stringify(message));
    const out = new Uint8Array(5 + data.length);
    out[0] = flags;
    new DataView(out.buffer).setUint32(1, data.length); // big-endian
    out.set(data, 5);
    return out;
  }

  // The next frame in `st` (bytes so far in st.bytes, text in st.text), or null when more is needed.
  const FRAMINGS = {
    sse(st) {
      const i = st.text.indexOf("\n\n");
      if (i < 0) return null;
      const block = st.text.slice(0, i);
      st.text = st.text.slice(i + 2);
      let event = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) event = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
      }
      return { event, data: data.join("\n") };
    },
    json(st) { // one JSON value a line; the ")]}'" guard, blank lines and length lines (digits alone) skipped
      for (;;) {
        const i = st.text.indexOf("\n");
        if (i < 0) return null;
        const line = st.text.slice(0, i).trim();
        st.text = st.text.slice(i + 1);
        if (line && line !== ")]}'" && !/^\d+$/.test(line)) return { data: line };
      }
    },
    connect(st) { // the 5-byte header first: a length byte may be 0x7B, a "{"
      if (st.bytes.length < 5) return null;
      const n = new DataView(st.bytes.buffer, st.bytes.byteOffset, 5).getUint32(1);
      if (st.bytes.length < 5 + n) return null;
      const frame = { flags: st.bytes[0], data: utf8.decode(st.bytes.subarray(5, 5 + n)) };
      st.bytes = st.bytes.slice(5 + n);
      return frame;
    },
  };

  function stream(run, body) {
    const asked = site.request(body);
    return fetch(asked.url, { method: "POST", headers: asked.headers, body: asked.body,
                              signal: run.controller.signal })
      .then((res) => (res.ok ? events(res) : res));
  }

  function events(res) {
    const reader = res.body.getReader();
    const text = new TextDecoder("utf-8");
    const st = { text: "", bytes: new Uint8Array(0) };
    const out = [];
    const onFrame = site.decoder(out);
    const next = FRAMINGS[site.framing];
    return new Response(new ReadableStream({
      async pull(ctrl) {
        for (;;) {
          if (out.length) { ctrl.enqueue(encoder.encode(JSON.stringify(out.shift()) + "\n")); return; }
          const frame = next(st);
          if (frame) { onFrame(frame); continue; }
          const { value, done } = await reader.read();
          if (done) { ctrl.close(); return; }
          if (site.framing !== "connect") st.text += text.decode(value, { stream: true });
          else { const b = new Uint8Array(st.bytes.length + value.length); b.set(st.bytes); b.set(value, st.bytes.length); st.bytes = b; }
        }
      },
      cancel() { reader.cancel(); },
    }), { status: 200 });
  }

  const piece = (out, t, d) => { if (typeof d === "string" && d) out.push({ t, d }); };

  // deepseek: a document of fragments (THINK, RESPONSE) changed by patch events.
  function deepseekDecoder(out) {
    let kind = null; // the last fragment's type
    let path = null; // the path of the last patch
    let status = "done";
    const add = (type, text) => piece(out, type === "THINK" ? "think" : "token", text);
    const fragments = (list) => { for (const f of list || []) { kind = f.type; add(kind, f.content); } };
    const patch = (p, o, v) => {
      if (p === "response" && o === "BATCH") {
        for (const sub of v || []) if (sub.p === "status" && sub.v === "INCOMPLETE") status = "stopped";
      } else if (p === "response/fragments" && o === "APPEND") {
        fragments(v);
      } else if (p === "response/fragments/-1/content") {
        add(kind, v);
      }
    };
    return ({ event, data }) => {
      if (event === "ready") { out.push({ t: "start", id: "" }); return; }
      if (event === "close") { out.push({ t: status }); return; }
      if (event === "error") {
        const e = JSON.parse(data || "{}");
        out.push({ t: "error", code: e.code, message: e.message });
        return;
      }
      if (event !== "message" || !data) return;
      const ev = JSON.parse(data);
      if (ev.choice) { // ds_new_format
        const d = ev.choice.delta;
        if (d) add(d.kind === "reasoning" ? "THINK" : "RESPONSE", d.chunk);
        if (ev.choice.finished === false) status = "stopped";
        return;
      }
      if (ev.p !== undefined) { path = ev.p; patch(ev.p, ev.o, ev.v); return; }
      if (path === null && ev.v && ev.v.response) { fragments(ev.v.response.fragments); return; }
      patch(path, "APPEND", ev.v);
    };
  }

  // claude: content blocks; thinking_delta is thinking, text_delta the answer; the stop reason at the end.
  function claudeDecoder(out) {
    let reason = "end_turn";
    return ({ event, data }) => {
      if (!data) return;
      const ev = JSON.parse(data);
      const type = ev.type || event;
      if (type === "message_start") out.push({ t: "start", id: (ev.message && ev.message.id) || "" });
      else if (type === "content_block_start") {
        const b = ev.content_block || {};
        piece(out, b.type === "thinking" ? "think" : "token", b.type === "thinking" ? b.thinking : b.text);
      } else if (type === "content_block_delta") {
        const d = ev.delta || {};
        if (d.type === "thinking_delta") piece(out, "think", d.thinking);
        else if (d.type === "text_delta") piece(out, "token", d.text);
      } else if (type === "message_delta") reason = (ev.delta && ev.delta.stop_reason) || reason;
      else if (type === "message_stop") out.push({ t: reason === "end_turn" ? "done" : "stopped" });
      else if (type === "error") out.push({ t: "error", code: (ev.error || {}).type, message: (ev.error || {}).message });
    };
  }

  // kimi: messages and blocks set or appended; the echoed user message skipped; the end-of-stream frame last.
  function kimiDecoder(out) {
    let role = "";
    let status = "done";
    const blocks = new Map(); // block id -> content so far
    return ({ flags, data }) => {
      const ev = JSON.parse(data || "{}");
      if (flags & 0x02) {
        if (ev.error) out.push({ t: "error", code: ev.error.code, message: ev.error.message });
        else out.push({ t: status });
        return;
      }
      if (ev.message) {
        role = ev.message.role || role;
        if (role === "assistant" && ev.message.status === "generating") out.push({ t: "start", id: ev.message.id || "" });
        if (ev.message.status === "cancelled") status = "stopped";
      }
      const b = ev.block;
      if (!b || role === "user") return;
      const kind = b.think ? "think" : b.text ? "token" : null;
      if (!kind) return;
      const content = (b.think || b.text).content || "";
      const before = blocks.get(b.id) || "";
      const now = ev.op === "set" ? content : before + content;
      blocks.set(b.id, now);
      piece(out, kind, now.startsWith(before) ? now.slice(before.length) : now);
    };
  }

  // chatgpt: delta v1; the thinking is a "thoughts" message, the answer a text message of channel "final".
  function chatgptDecoder(out) {
    let path = "";
    let op = "append";
    let status = "done";
    const apply = (ev, inherit) => {
      const p = inherit && ev.p === undefined ? path : ev.p || "";
      const o = ev.o || (inherit && ev.p === undefined ? op : "replace");
      if (o === "patch") { for (const sub of ev.v || []) apply(sub, false); return; }
      path = p;
      op = o;
      if (p === "/message/status" && ev.v === "finished_partial_completion") status = "stopped";
      if (o === "append" && p.startsWith("/message/content/")) piece(out, p.includes("/thoughts/") ? "think" : "token", ev.v);
    };
    return ({ event, data }) => {
      if (event === "delta_encoding" || !data) return;
      if (data.trim() === "[DONE]") { out.push({ t: status }); return; }
      const ev = JSON.parse(data);
      if (ev.type === "resume_conversation_token") out.push({ t: "start", id: "" });
      else if (ev.type === "error") out.push({ t: "error", code: (ev.error || {}).code, message: (ev.error || {}).message });
      else if (ev.p !== undefined || ev.v !== undefined || ev.o !== undefined) apply(ev, true);
    };
  }

  // doubao: text blocks (10000) are the thinking while the deep-think block (10040) is open, then the answer.
  function doubaoDecoder(out) {
    let thinking = false;
    const blocks = (list) => {
      for (const b of list || []) {
        if (b.block_type === 10040) thinking = !b.is_finish;
        else if (b.block_type === 10000) piece(out, thinking ? "think" : "token", ((b.content || {}).text_block || {}).text);
      }
    };
    return ({ event, data }) => {
      const ev = data ? JSON.parse(data) : {};
      if (event === "STREAM_MSG_NOTIFY") {
        out.push({ t: "start", id: (ev.meta && ev.meta.message_id) || "" });
        blocks((ev.content || {}).content_block);
      } else if (event === "STREAM_CHUNK") {
        for (const op of ev.patch_op || []) blocks((op.patch_value || {}).content_block);
      } else if (event === "SSE_REPLY_END") out.push({ t: ev.end_type === 2 ? "stopped" : "done" });
      else if (event === "STREAM_ERROR") out.push({ t: "error", code: ev.error_code, message: ev.error_msg });
    };
  }

  // qwen: deltas whose phase says thinking or answer; the answer's "finished" status is the end.
  function qwenDecoder(out) {
    return ({ data }) => {
      if (!data) return;
      const ev = JSON.parse(data);
      if (ev["response.created"]) { out.push({ t: "start", id: ev["response.created"].response_id || "" }); return; }
      if (ev.success === false) { out.push({ t: "error", code: (ev.data || {}).code, message: (ev.data || {}).details }); return; }
      for (const c of ev.choices || []) {
        const d = c.delta || {};
        piece(out, d.phase === "think" ? "think" : "token", d.content);
        if (d.status === "stopped") out.push({ t: "stopped" });
        else if (d.phase === "answer" && d.status === "finished") out.push({ t: "done" });
      }
    };
  }

  // For snapshot streams (the whole text so far): grow(kind, now) pushes only what is new since the last one.
  function snapshots(out) {
    const seen = { think: "", token: "" };
    return (kind, now) => {
      if (!now) return;
      piece(out, kind, now.startsWith(seen[kind]) ? now.slice(seen[kind].length) : now);
      seen[kind] = now;
    };
  }

  // chatglm: each event holds every part's whole content so far: only the new suffix is pushed.
  function chatglmDecoder(out) {
    let started = false;
    const grow = snapshots(out);
    return ({ data }) => {
      if (!data) return;
      const ev = JSON.parse(data);
      if (!started) { started = true; out.push({ t: "start", id: ev.id || "" }); }
      if (ev.status === "error") { out.push({ t: "error", code: (ev.last_error || {}).code, message: (ev.last_error || {}).message }); return; }
      let think = "";
      let text = "";
      let stopped = false;
      for (const part of ev.parts || []) {
        if (part.role && part.role !== "assistant") continue;
        stopped = stopped || part.status === "interrupted";
        for (const c of part.content || []) {
          if (c.type === "think") think += c.think || "";
          else if (c.type === "text") text += c.text || "";
        }
      }
      grow("think", think);
      grow("token", text);
      if (ev.status === "finish") out.push({ t: stopped ? "stopped" : "done" });
    };
  }

  // gemini: a candidate's [1][0] is the whole answer so far, [37][0][0] the whole thinking, [8][0] == 2 when
  // finished; the end part ["e", ...] closes the stream (stopped when no finished candidate came first).
  function geminiDecoder(out) {
    let started = false;
    let finished = false;
    const grow = snapshots(out);
    const at = (v, ...path) => path.reduce((x, i) => (Array.isArray(x) ? x[i] : undefined), v);
    return ({ data }) => {
      for (const part of JSON.parse(data)) {
        if (at(part, 0) === "e") { out.push({ t: finished ? "done" : "stopped" }); continue; }
        if (at(part, 0) !== "wrb.fr") continue;
        if (typeof part[2] !== "string") {
          const info = at(part, 5, 2, 0, 1) || [];
          out.push({ t: "error", code: info[0], message: info[1] });
          continue;
        }
        const inner = JSON.parse(part[2]);
        if (!started) { started = true; out.push({ t: "start", id: at(inner, 1, 1) || "" }); }
        const c = at(inner, 4, 0);
        grow("think", at(c, 37, 0, 0) || "");
        grow("token", at(c, 1, 0) || "");
        if (at(c, 8, 0) === 2) finished = true;
      }
    };
  }

  return { name, stream: site ? stream : null, mark, showThinking };
})();
