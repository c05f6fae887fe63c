// Copyright (c) 2026 the authors of this package. Licensed under the Apache License 2.0 (LICENSE).
// SPDX-License-Identifier: Apache-2.0
/// The inbox page: one self-contained document (inline CSS and script, no fetch but this
/// server's API), kept in the source so the binary needs no resource bundle at run time.
///
/// Payloads are untrusted text: the script builds every node with `createElement` and
/// `textContent`, never from markup, and the server's Content-Security-Policy (`{{NONCE}}`,
/// replaced per response) lets no other script run.
enum InboxPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>apnskit mock inbox</title>
<style nonce="{{NONCE}}">
:root { --bg:#f2f2f7; --card:#fff; --ink:#1c1c1e; --muted:#6e6e73; --line:#e5e5ea; --accent:#007aff; --ok:#248a3d; --bad:#d70015; --warn:#b25000; }
* { box-sizing:border-box; }
body { margin:0; font:14px/1.4 -apple-system, "SF Pro Text", "Segoe UI", "DejaVu Sans", sans-serif; background:var(--bg); color:var(--ink); }
header { position:sticky; top:0; z-index:2; background:rgba(255,255,255,.92); backdrop-filter:blur(12px); border-bottom:1px solid var(--line); }
.bar { display:flex; align-items:center; gap:12px; padding:10px 20px; }
h1 { font-size:17px; margin:0; font-weight:650; }
h1 small { font-weight:400; color:var(--muted); margin-left:6px; }
.live { display:inline-flex; align-items:center; gap:6px; font-size:12px; color:var(--muted); }
.live i { width:8px; height:8px; border-radius:50%; background:#c7c7cc; display:inline-block; }
.live.on i { background:#34c759; box-shadow:0 0 0 3px rgba(52,199,89,.18); }
.spacer { flex:1; }
.counts { font-size:12px; color:var(--muted); }
.filters { display:flex; gap:8px; padding:0 20px 10px; flex-wrap:wrap; }
input, select, button { font:inherit; font-size:13px; border:1px solid var(--line); border-radius:8px; padding:6px 10px; background:#fff; color:var(--ink); }
input { min-width:150px; }
input#q { flex:1; min-width:220px; }
button { cursor:pointer; }
button.danger { color:var(--bad); }
button.link { border:none; background:none; color:var(--accent); padding:2px 0; }
main { padding:16px 20px 40px; display:flex; flex-direction:column; gap:12px; }
.empty { text-align:center; color:var(--muted); padding:60px 0; }
.card { background:var(--card); border-radius:14px; box-shadow:0 1px 2px rgba(0,0,0,.06); display:grid; grid-template-columns:380px 1fr; overflow:hidden; }
.card.rejected { box-shadow:inset 4px 0 0 var(--bad), 0 1px 2px rgba(0,0,0,.06); }
.stage { background:linear-gradient(135deg,#5e5ce6 0%,#bf5af2 55%,#ff9f0a 100%); padding:16px; display:flex; align-items:center; }
.card.rejected .stage { background:linear-gradient(135deg,#8e8e93,#48484a); }
.banner { width:100%; background:rgba(245,245,247,.86); border-radius:18px; padding:10px 12px 12px; box-shadow:0 4px 18px rgba(0,0,0,.18); }
.banner .top { display:flex; align-items:center; gap:8px; font-size:12px; color:#3a3a3c; }
.icon { position:relative; width:22px; height:22px; border-radius:6px; color:#fff; font-weight:700; font-size:12px; display:flex; align-items:center; justify-content:center; flex:none; }
.badge { position:absolute; top:-7px; right:-9px; min-width:16px; height:16px; padding:0 4px; border-radius:8px; background:#ff3b30; color:#fff; font-size:10px; line-height:16px; text-align:center; }
.app { text-transform:uppercase; letter-spacing:.02em; font-weight:600; flex:1; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
.when { color:#6e6e73; }
.title { font-weight:650; margin-top:6px; }
.subtitle { font-weight:600; font-size:13px; }
/* A banner shows at most four lines of body, as iOS does; the raw JSON has the rest. */
.body { margin-top:2px; white-space:pre-wrap; word-break:break-word; display:-webkit-box; -webkit-line-clamp:4; -webkit-box-orient:vertical; overflow:hidden; }
.loc { font-style:italic; color:#48484a; }
.sound { margin-top:6px; font-size:11px; color:#6e6e73; }
.silent { color:#3a3a3c; font-size:13px; }
.silent b { display:block; margin-top:6px; }
.state { margin-top:6px; display:grid; grid-template-columns:auto 1fr; gap:2px 10px; font-size:12px; }
.state dt { color:#6e6e73; } .state dd { margin:0; font-weight:600; word-break:break-word; }
.info { padding:12px 16px; min-width:0; }
.head { display:flex; align-items:center; gap:8px; flex-wrap:wrap; }
.chip { font-size:11px; font-weight:650; border-radius:6px; padding:2px 7px; background:#e5e5ea; color:#3a3a3c; }
.chip.ok { background:#e3f6e8; color:var(--ok); }
.chip.bad { background:#ffe5e7; color:var(--bad); }
.chip.kind { background:#e8f0fe; color:#0a58ca; }
.reason { margin-top:8px; padding:8px 10px; border-radius:8px; background:#fff2f3; color:#8a0010; }
.reason b { display:block; }
.device { margin-top:8px; padding:8px 10px; border-radius:8px; background:#fff8e1; color:#7a4b00; }
.device b { display:block; }
.meta { margin-top:8px; display:grid; grid-template-columns:110px 1fr; gap:1px 12px; font-size:12px; }
.meta dt { color:var(--muted); } .meta dd { margin:0; font-family:ui-monospace, "DejaVu Sans Mono", monospace; word-break:break-all; }
pre.raw { margin:8px 0 0; padding:10px; background:#1c1c1e; color:#f2f2f7; border-radius:8px; font-size:12px; overflow:auto; max-height:320px; white-space:pre-wrap; word-break:break-all; }
@media (max-width: 860px) { .card { grid-template-columns:1fr; } }
</style>
</head>
<body>
<header>
  <div class="bar">
    <h1>apnskit mock inbox<small>every request the gateway answered</small></h1>
    <span class="live" id="live"><i></i><span id="liveText">connecting</span></span>
    <span class="spacer"></span>
    <span class="counts" id="counts"></span>
    <button class="danger" id="clear" title="Empty the inbox (the --record file is not touched)">Clear</button>
  </div>
  <div class="filters">
    <input id="token" placeholder="Device token" aria-label="Device token">
    <input id="topic" placeholder="Topic" aria-label="Topic">
    <select id="status" aria-label="Status">
      <option value="">All statuses</option><option value="accepted">Accepted</option><option value="rejected">Rejected</option>
    </select>
    <select id="pushType" aria-label="Push type">
      <option value="">All push types</option><option>alert</option><option>background</option><option>voip</option>
      <option>liveactivity</option><option>complication</option><option>fileprovider</option><option>mdm</option>
      <option>location</option><option>pushtotalk</option><option>widgets</option><option value="none">none</option>
    </select>
    <input id="q" type="search" placeholder="Search tokens, topics, reasons, ids, payloads" aria-label="Search">
  </div>
</header>
<main id="list"><div class="empty">Waiting for notifications…</div></main>
<script nonce="{{NONCE}}">
"use strict";
const MAX_SHOWN = 500;
let entries = [];          // newest first, as the API returns them
let stats = { kept: 0, seen: 0, limit: 0 };
const $ = (id) => document.getElementById(id);

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function filters() {
  return { token: $("token").value.trim().toLowerCase(), topic: $("topic").value.trim().toLowerCase(),
           status: $("status").value, pushType: $("pushType").value, q: $("q").value.trim().toLowerCase() };
}

// The same rules as the API's InboxQuery, for events that arrive live.
function matches(e, f) {
  const has = (v, n) => v != null && String(v).toLowerCase().includes(n);
  if (f.token && !has(e.token, f.token) && !has(e.channel, f.token)) return false;
  if (f.topic && !has(e.topic, f.topic)) return false;
  if (f.pushType === "none" ? e.push_type != null : (f.pushType && (e.push_type || "").toLowerCase() !== f.pushType)) return false;
  if (f.status === "accepted" && !e.accepted) return false;
  if (f.status === "rejected" && e.accepted) return false;
  if (f.q && ![e.token, e.channel, e.topic, e.reason, e.apns_id, e.identity, e.push_type, e.payload].some((v) => has(v, f.q))) return false;
  return true;
}

function query(f) {
  const p = new URLSearchParams();
  if (f.token) p.set("token", f.token);
  if (f.topic) p.set("topic", f.topic);
  if (f.status) p.set("status", f.status);
  if (f.pushType) p.set("push-type", f.pushType);
  if (f.q) p.set("q", f.q);
  p.set("limit", String(MAX_SHOWN));
  return p.toString().replace(/\+/g, "%20");
}

async function reload() {
  try {
    const answer = await fetch("/api/notifications?" + query(filters()), { cache: "no-store" });
    const data = await answer.json();
    entries = data.notifications || [];
    stats = { kept: data.kept, seen: data.seen, limit: data.limit };
  } catch (error) {
    entries = [];
  }
  render();
}

// App name from the topic: the bundle id's last part, without a push type's suffix.
function appName(topic) {
  if (!topic) return "Unknown app";
  const base = topic.replace(/\.(voip|complication|push-type\.[a-z]+)$/i, "");
  const last = base.split(".").pop() || base;
  return last.charAt(0).toUpperCase() + last.slice(1);
}

function iconColor(name) {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
  return "hsl(" + h + ",62%,48%)";
}

function parsePayload(e) {
  try { const v = JSON.parse(e.payload); return v && typeof v === "object" ? v : null; } catch (error) { return null; }
}

function localized(key, args) {
  const list = Array.isArray(args) && args.length ? " (" + args.map(String).join(", ") + ")" : "";
  return "⟨" + key + "⟩" + list;
}

// Title, subtitle and body as the device would show them; loc-keys as placeholders.
function alertParts(alert) {
  if (alert == null) return {};
  if (typeof alert !== "object") return { body: String(alert) };
  const part = (plain, key, args) => alert[plain] != null ? { text: String(alert[plain]) }
    : (alert[key] != null ? { text: localized(alert[key], alert[args]), loc: true } : null);
  return { title: part("title", "title-loc-key", "title-loc-args"), subtitle: part("subtitle", "subtitle-loc-key", "subtitle-loc-args"),
           body: part("body", "loc-key", "loc-args") };
}

function line(cls, part) {
  if (!part) return null;
  if (typeof part === "string") return el("div", cls, part);
  const node = el("div", cls + (part.loc ? " loc" : ""), part.text);
  if (part.loc) node.title = "localized on the device from the app's Localizable.strings";
  return node;
}

function banner(e) {
  const payload = parsePayload(e);
  const aps = payload && typeof payload.aps === "object" && payload.aps ? payload.aps : {};
  const name = e.protocol === "feedback" ? "Feedback service" : (e.protocol === "channels" ? "Channel management" : appName(e.topic));
  const box = el("div", "banner");
  const top = el("div", "top");
  const icon = el("span", "icon", name.charAt(0));
  icon.style.background = iconColor(name);
  if (typeof aps.badge === "number") icon.appendChild(el("span", "badge", aps.badge));
  top.append(icon, el("span", "app", name), el("span", "when", new Date(e.time).toLocaleTimeString()));
  box.appendChild(top);

  if (e.protocol === "feedback") {
    box.appendChild(el("div", "silent", "Feedback read: " + e.feedback_tuples + " unregistered token(s) handed out."));
    return box;
  }
  if (e.protocol === "channels") {
    box.appendChild(el("div", "silent", "A call to the channel management API" + (e.channel ? " for channel " + e.channel : "") + "."));
    return box;
  }
  if (!payload) {
    const cut = e.reason === "PayloadTooLarge" ? "Not delivered: too large (the inbox keeps the first " + e.payload_bytes + " bytes)."
      : "The body is not a JSON object: nothing would be shown.";
    box.appendChild(el("div", "silent", e.payload ? cut : "Empty body."));
    return box;
  }
  const isLive = e.push_type === "liveactivity" || aps["content-state"] !== undefined || e.protocol === "broadcast";
  const a = alertParts(aps.alert);
  const hasAlert = a.title || a.subtitle || a.body;
  if (isLive) {
    box.appendChild(el("div", "title", "Live Activity · " + (aps.event || "update")));
    if (hasAlert) { [line("subtitle", a.title), line("body", a.body)].forEach((n) => n && box.appendChild(n)); }
    const state = aps["content-state"];
    if (state && typeof state === "object") {
      const dl = el("dl", "state");
      for (const [k, v] of Object.entries(state)) { dl.append(el("dt", null, k), el("dd", null, typeof v === "object" ? JSON.stringify(v) : v)); }
      box.appendChild(dl);
    }
    if (aps["dismissal-date"]) box.appendChild(el("div", "sound", "Dismissed at " + new Date(aps["dismissal-date"] * 1000).toLocaleString()));
    return box;
  }
  if (!hasAlert) {
    const silent = el("div", "silent");
    silent.appendChild(el("b", null, aps["content-available"] == 1 || e.push_type === "background" ? "Silent (background) push" : "No alert"));
    silent.appendChild(el("span", null, aps["content-available"] == 1 ? "No banner: the app is woken in the background to fetch content."
      : "Nothing is shown on the device" + (typeof aps.badge === "number" ? " but the badge." : ".")));
    box.appendChild(silent);
  } else {
    [line("title", a.title), line("subtitle", a.subtitle), line("body", a.body)].forEach((n) => n && box.appendChild(n));
  }
  const sound = typeof aps.sound === "object" && aps.sound ? (aps.sound.name + (aps.sound.critical ? " (critical)" : "")) : aps.sound;
  if (sound) box.appendChild(el("div", "sound", "♪ " + sound));
  return box;
}

function statusChip(e) {
  if (e.protocol === "legacy") return el("span", "chip " + (e.accepted ? "ok" : "bad"), e.accepted ? "accepted (no reply)" : "status " + e.status);
  if (e.protocol === "feedback") return el("span", "chip ok", "read");
  return el("span", "chip " + (e.accepted ? "ok" : "bad"), e.dropped ? "dropped" : e.status);
}

function card(e) {
  const node = el("article", "card" + (e.accepted ? "" : " rejected"));
  node.dataset.id = e.id;
  node.dataset.status = e.status;
  if (e.reason) node.dataset.reason = e.reason;
  const stage = el("div", "stage");
  stage.appendChild(banner(e));
  const info = el("div", "info");
  const head = el("div", "head");
  head.append(statusChip(e), el("span", "chip kind", e.protocol === "h2" ? "HTTP/2" : e.protocol));
  if (e.push_type) head.appendChild(el("span", "chip", e.push_type));
  head.appendChild(el("span", "when", new Date(e.time).toLocaleString()));
  info.appendChild(head);
  if (e.reason) {
    const why = el("div", "reason");
    why.appendChild(el("b", null, e.reason));
    if (e.advice) why.appendChild(el("span", null, e.advice));
    info.appendChild(why);
  }
  if (e.device) {
    // Lint: APNs accepted it, but this is what a device would do (docs/lint.md).
    const dev = el("div", "device");
    dev.appendChild(el("b", null, "On a device: " + e.device.split(":")[0]));
    dev.appendChild(el("span", null, e.device.slice(e.device.indexOf(":") + 1).trim() + " [" + e.lint.join(", ") + "]"));
    info.appendChild(dev);
  }
  const meta = el("dl", "meta");
  const rows = [["device token", e.token], ["channel", e.channel], ["topic", e.topic], ["priority", e.priority], ["collapse id", e.collapse_id],
    ["expiration", e.expiration], ["apns-id", e.apns_id], ["apns-unique-id", e.apns_unique_id], ["identifier", e.identifier],
    ["sent with", e.identity], ["payload", e.payload_bytes + " bytes"], ["connection", "#" + e.connection]];
  for (const [k, v] of rows) { if (v != null && v !== "") meta.append(el("dt", null, k), el("dd", null, v)); }
  info.appendChild(meta);
  if (e.payload) {
    const toggle = el("button", "link", "Show raw JSON");
    const raw = el("pre", "raw");
    raw.hidden = true;
    toggle.addEventListener("click", () => {
      if (!raw.textContent) {
        const parsed = parsePayload(e);
        raw.textContent = parsed ? JSON.stringify(parsed, null, 2) : e.payload;
      }
      raw.hidden = !raw.hidden;
      toggle.textContent = raw.hidden ? "Show raw JSON" : "Hide raw JSON";
    });
    info.append(toggle, raw);
  }
  node.append(stage, info);
  return node;
}

function render() {
  const list = $("list");
  list.replaceChildren();
  const shown = entries.slice(0, MAX_SHOWN);
  if (!shown.length) list.appendChild(el("div", "empty", stats.kept ? "No notification matches these filters." : "Waiting for notifications…"));
  for (const e of shown) list.appendChild(card(e));
  const n = (v) => Number(v || 0).toLocaleString("en-US");
  $("counts").textContent = n(shown.length) + " shown · " + n(stats.kept) + " kept of " + n(stats.seen) + " answered (the inbox keeps the newest " + n(stats.limit) + ")";
}

function connect() {
  const source = new EventSource("/api/events");
  let caughtUp = true;
  source.onopen = () => { $("live").className = "live on"; $("liveText").textContent = "live"; if (!caughtUp) reload(); caughtUp = true; };
  source.onerror = () => { $("live").className = "live"; $("liveText").textContent = "reconnecting"; caughtUp = false; };
  source.addEventListener("notification", (message) => {
    const e = JSON.parse(message.data);
    stats.seen = Math.max(stats.seen, e.id);
    stats.kept = Math.min(stats.kept + 1, stats.limit || stats.kept + 1);
    if (!matches(e, filters()) || entries.some((x) => x.id === e.id)) { render(); return; }
    entries.unshift(e);
    if (entries.length > MAX_SHOWN) entries.length = MAX_SHOWN;
    render();
  });
  source.addEventListener("clear", () => { entries = []; stats.kept = 0; render(); });
}

let typing;
for (const id of ["token", "topic", "q"]) $(id).addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(reload, 200); });
for (const id of ["status", "pushType"]) $(id).addEventListener("change", reload);
$("clear").addEventListener("click", async () => { await fetch("/api/notifications", { method: "DELETE" }); reload(); });
reload().then(connect);
</script>
</body>
</html>
"""#
}
