// dixit-ai tables: the page. Plain JavaScript, no build step.
// Everything the server sends is data; text reaches the page through textContent only.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const SVG = "http://www.w3.org/2000/svg";
function rabbit(colour, cls) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 40 40");
  svg.setAttribute("class", cls || "rabbit-icon");
  svg.setAttribute("aria-hidden", "true");
  const shapes = [
    ["ellipse", { cx: 14, cy: 10, rx: 3.6, ry: 9 }], ["ellipse", { cx: 23, cy: 10, rx: 3.6, ry: 9 }],
    ["circle", { cx: 19, cy: 21, r: 8 }], ["ellipse", { cx: 21, cy: 31, rx: 12, ry: 8 }],
  ];
  for (const [tag, attrs] of shapes) {
    const shape = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) shape.setAttribute(k, v);
    shape.setAttribute("fill", colour);
    shape.setAttribute("stroke", "rgba(0,0,0,0.25)");
    svg.append(shape);
  }
  const eye = document.createElementNS(SVG, "circle");
  eye.setAttribute("cx", 16); eye.setAttribute("cy", 19); eye.setAttribute("r", 1.4);
  eye.setAttribute("fill", "#222");
  svg.append(eye);
  return svg;
}

let toastTimer = null;
function toast(message, isError) {
  const box = $("toast");
  box.textContent = message;
  box.className = "toast" + (isError ? " error" : "");
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

async function api(path, options) {
  const response = await fetch(path, options);
  let data = null;
  try { data = await response.json(); } catch (e) { data = null; }
  if (!response.ok) throw new Error((data && data.error) || response.statusText);
  return data;
}

function show(screen) {
  for (const id of ["screen-create", "screen-join", "screen-play"]) $(id).hidden = id !== screen;
}

// ------------------------------------------------------------------ seats kept in this browser

function seats() {
  try { return JSON.parse(localStorage.getItem("dixit-seats") || "{}"); } catch (e) { return {}; }
}
function keepSeat(invite, token, code) {
  const all = seats();
  // A rematch moves the seat (and its code) to a new table: the code travels with the token.
  const same = Object.values(all).find((entry) => entry.token === token && entry.code);
  all[invite] = { token, code: code || (all[invite] && all[invite].code) || (same && same.code) || null };
  localStorage.setItem("dixit-seats", JSON.stringify(all));
}
function seatFor(invite) { return seats()[invite] || null; }
function inviteOf(table) { return table.invite_path ? table.invite_path.slice(6) : null; }

// ------------------------------------------------------------------ play

const play = {
  token: null, watch: null, socket: null, state: null, selection: [], clue: "", seenRound: -1,
  hopped: -1, hopTimer: -1, retry: 500, timerBase: null, readingBase: null, refs: 0,
  outbox: null, captions: {}, captionsFor: null, history: null, myTurnKey: null,
  news: null, announced: null, timerWarned: null, stay: -1, panelOpener: null,
};

function initPlay() {
  const match = /t=([^&]+)/.exec(location.hash);
  if (!match) { location.href = "/"; return; }
  play.token = decodeURIComponent(match[1]);
  play.seenRound = parseInt(sessionStorage.getItem(`dixit-seen-${play.token}`) || "-1", 10);
  startPlay();
}

function initWatch(watch) {
  play.watch = watch;
  startPlay();
}

function startPlay() {
  show("screen-play");
  $("help-button").hidden = false;
  $("history-button").hidden = false;
  $("help-button").onclick = showHelp;
  $("history-button").onclick = () => { play.history = "wanted"; sendNow({ type: "history" }); };
  $("panel-close").onclick = closePanel;
  $("panel").addEventListener("keydown", (e) => { if (e.key === "Escape") { e.preventDefault(); closePanel(); } });
  $("sound").checked = localStorage.getItem("dixit-sound") === "1";
  $("sound").onchange = () => localStorage.setItem("dixit-sound", $("sound").checked ? "1" : "0");
  connect();
  setInterval(tickTimer, 250);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws`);
  play.socket = socket;
  socket.onopen = () => {
    socket.send(JSON.stringify(play.watch ? { type: "hello", watch: play.watch } : { type: "hello", token: play.token }));
    $("connection").classList.add("on");
    $("connection").setAttribute("aria-label", "connected");
    $("offline").hidden = true;
    play.retry = 500;
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    $("connection").classList.remove("on");
    $("connection").setAttribute("aria-label", "offline");
    if (play.socket !== socket) return;
    if (event.code >= 4400 && event.code < 4500 && ![4503, 4429, 4408].includes(event.code)) return;
    $("offline").hidden = false;
    setTimeout(connect, event.code === 4429 ? 10000 : play.retry);  // 4429: too many connections
    play.retry = Math.min(play.retry * 2, 4000);
  };
}

function sendNow(message) {
  if (!play.socket || play.socket.readyState !== WebSocket.OPEN) return false;
  play.socket.send(JSON.stringify(message));
  return true;
}

// A move made while offline waits in the outbox and goes as soon as the page is back online,
// if it still applies (the same phase of the same round).
function send(message) {
  message.ref = ++play.refs;
  const game = play.state && play.state.game;
  const key = game ? `${game.phase}/${game.round}` : "lobby";
  if (!sendNow(message)) {
    play.outbox = { message, key };
    $("offline").hidden = false;
    $("offline-pending").textContent = "your move will be sent when the connection is back.";
    render();
    return;
  }
  play.outbox = null;
}


function receive(message) {
  if (message.type === "error") {
    toast(message.message, true);
    if (message.status === 401 || message.status === 410) $("stage").replaceChildren(el("p", { text: message.message }));
    return;
  }
  if (message.type === "left") { location.href = "/"; return; }
  if (message.type === "notice") { $("notice").textContent = message.message || ""; $("notice").hidden = !message.message; return; }
  if (message.type === "history") { if (play.history === "wanted") showHistory(message.rounds); return; }
  if (message.type === "moved") {  // a rematch: the same token opens the new table
    if (play.watch) { location.href = message.watch_path; return; }
    play.seenRound = -1; play.state = null; play.clue = "";
    sessionStorage.removeItem(`dixit-seen-${play.token}`);
    play.socket.close();
    connect();
    return;
  }
  if (message.type === "reaction") { showReaction(message); return; }  // social.js
  if (message.type === "ack") { if (play.lastTell === message.ref) play.clue = ""; return; }
  if (message.type !== "state") return;
  const before = play.state;
  play.state = message;
  const game = message.game;
  const key = game ? `${game.phase}/${game.round}` : "lobby";
  const beforeKey = before && before.game ? `${before.game.phase}/${before.game.round}` : "lobby";
  if (key !== beforeKey) { play.selection = []; }
  const you = message.you;
  play.timerBase = you.deadline_in !== null && you.deadline_in !== undefined ? { at: performance.now(), left: you.deadline_in } : null;
  play.readingBase = you.reading_for !== null && you.reading_for !== undefined ? { at: performance.now(), left: you.reading_for } : null;
  if (!play.watch && message.table.invite_path) keepSeat(inviteOf(message.table), play.token);
  if (play.captionsFor !== message.table.id) {
    play.captionsFor = message.table.id;
    api(`/api/tables/${message.table.id}/captions`).then((c) => { play.captions = c || {}; render(); }).catch(() => {});
  }
  if (play.outbox) {
    const pending = play.outbox;
    play.outbox = null;
    $("offline-pending").textContent = "";
    if (pending.key === key) { sendNow(pending.message); toast("Back online: your move was sent"); }
  }
  render();
  renderSocial();  // social.js: reactions bar, the creator's seat requests
  notifyTurn();
}

function myTurn() {
  const { table, you, game } = play.state;
  // A broken table refuses every move: nobody's turn, whatever its last state says.
  return !play.watch && !table.broken && game && game.phase !== "over" && you.controller === "human" && game.pending.includes(you.seat);
}

function notifyTurn() {
  const game = play.state.game;
  const key = myTurn() ? `${game.phase}/${game.round}` : null;
  if (key && key !== play.myTurnKey && $("sound").checked) beep();
  play.myTurnKey = key;
  document.title = `${key ? "● Your turn · " : play.state.table.broken ? "Stopped · " : ""}${play.state.table.title} · dixit-ai`;
}

function beep() {
  try {
    const audio = new (window.AudioContext || window.webkitAudioContext)();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660; gain.gain.value = 0.08;
    tone.connect(gain); gain.connect(audio.destination);
    tone.start(); tone.stop(audio.currentTime + 0.18);
  } catch (e) { /* no audio here */ }
}

// Dark or white text, whichever reads better on a seat's colour ("#rrggbb").
function inkOn(colour) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(colour || "");
  if (!m) return "#fff";
  const lum = (hex) => { const c = parseInt(hex, 16) / 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
  const l = 0.2126 * lum(m[1]) + 0.7152 * lum(m[2]) + 0.0722 * lum(m[3]);
  return (1.05 / (l + 0.05)) >= ((l + 0.05) / 0.0605) ? "#fff" : "#1d1a22";  // #1d1a22: luminance ~0.0105
}

function seatName(seat) {
  const s = play.state.table.seats[seat];
  return s && s.name ? s.name : `seat ${seat + 1}`;
}

function seatColour(seat) { return play.state.table.seats[seat].colour; }

// The stage and the players' list are drawn anew from each state. render() keeps the keyboard
// focus on the same control (by id, board position or card) when its node is replaced, never
// takes the focus from a control that still has it, and says each new screen in the live region.
function render() {
  const mark = focusMark();
  const before = $("stage").dataset.screen || "";
  play.news = null;
  draw();
  restoreFocus(mark, ($("stage").dataset.screen || "") !== before);
  announceScreen();
}

function focusMark() {
  const node = document.activeElement;
  if (!node || node === document.body || !$("screen-play").contains(node)) return { node: null };
  const key = node.id ? `#${CSS.escape(node.id)}`
    : node.dataset.position !== undefined ? `[data-position="${node.dataset.position}"]`
    : node.dataset.card !== undefined ? `[data-card="${node.dataset.card}"]` : null;
  const caret = node.tagName === "INPUT" ? [node.selectionStart, node.selectionEnd, node.selectionDirection] : null;
  return { node, key, caret };
}

function restoreFocus(mark, newScreen) {
  const now = document.activeElement;
  if (now && now !== document.body) return;  // the focus is somewhere: leave it there
  const lost = mark.node !== null && !mark.node.isConnected;
  let target = lost && mark.key ? $("screen-play").querySelector(mark.key) : null;
  if (target && (target.disabled || target.closest("[hidden]"))) target = null;
  if (target) {
    target.focus({ preventScroll: true });
    if (mark.caret && target.tagName === "INPUT") target.setSelectionRange(...mark.caret);
    return;
  }
  // Its control is gone (a move sent, a new phase): the new screen's first control to use, or
  // its heading; nothing is focused for a page whose focus was nowhere, but a takeover's button.
  const stage = $("stage");
  target = newScreen ? stage.querySelector("[data-autofocus]") : null;
  if (!target && lost) target = stage.querySelector("h2");
  if (!target || (!lost && !(newScreen && target.dataset.autofocus === "always"))) return;
  if (!target.hasAttribute("tabindex") && target.tagName === "H2") target.tabIndex = -1;
  target.focus();
}

// The live region says each new screen once: the renderers set play.news, else the banner's line.
function announceScreen() {
  const game = play.state.game;
  const screen = $("stage").dataset.screen || "";
  const round = screen === "reveal" ? game.last_round.round : game ? game.round : -1;
  const key = `${play.state.table.id}/${screen}/${round}`;
  if (key === play.announced) return;
  const first = play.announced === null;
  play.announced = key;
  let news = play.news !== null ? play.news : $("banner").hidden ? "" : $("banner-text").textContent;
  if (first && screen === "lobby") news = "";  // the page is just open: nothing has changed
  announce(news);
}

function announce(text) { $("announce").textContent = text; }

function draw() {
  const { table, you, game } = play.state;
  $("table-title").hidden = false;
  $("table-title").textContent = `${table.title} · ${table.edition}` + (table.fairness.experiment ? " · experiment (seed known to all)" : "") + (play.watch ? " · watching" : "");
  renderPlayers();
  renderLeave();
  renderTrack();
  const stage = $("stage");
  renderBrokenAlert(table.broken);  // phases.js: the alert in the banner's place
  if (table.broken) { renderBroken(stage, game); return; }
  if (!game) { renderLobby(stage); return; }
  // A bot playing the seat comes first (its reveals wait): the way back must not be missed.
  if (!play.watch && you.controller === "bot" && game.phase !== "over") { renderTakenOver(stage); return; }
  const last = game.last_round;
  if (last && last.round > play.seenRound) { renderReveal(stage, last, game); return; }
  if (game.phase === "over") { renderEnd(stage, game); return; }
  if (play.watch) { renderWatch(stage, game); return; }
  if (game.phase === "tell") renderTell(stage, game);
  else if (game.phase === "play") renderPlay(stage, game);
  else if (game.phase === "red") renderRed(stage, game);
  else renderVote(stage, game);
}

function banner(text) { $("banner-text").textContent = text; }

function tickTimer() {
  const box = $("timer");
  const reading = $("reading");
  const stage = $("stage");
  if (reading && play.readingBase) {
    const left = Math.max(0, play.readingBase.left - (performance.now() - play.readingBase.at) / 1000);
    const round = play.state.game.last_round.round;
    // A keyboard user inside the reveal stays on it, as one who pressed "Stay on this reveal".
    const active = document.activeElement;
    if (play.stay !== round && stage.contains(active) && active.id !== "continue" && active.matches(":focus-visible")) {
      play.stay = round;
      render();
      return;
    }
    if (play.stay === round) {
      reading.textContent = myTurn() && left > 0 ? `staying on this reveal; your move timer starts in ${Math.ceil(left)} s`
        : "staying on this reveal until you press Next round";
    } else {
      reading.textContent = `next round in ${Math.ceil(left)} s`;
      if (left <= 0) { play.readingBase = null; const next = $("continue"); if (next) next.click(); }
    }
  }
  if (!play.timerBase || !myTurn()) { box.textContent = ""; return; }
  const left = Math.max(0, play.timerBase.left - (performance.now() - play.timerBase.at) / 1000);
  box.textContent = `time left: ${Math.ceil(left)} s`;
  // Warned twice before the time runs out: at 20 s and at 10 s left.
  const game = play.state.game;
  const mark = left <= 0 ? null : left <= 10 ? 10 : left <= 20 ? 20 : null;
  const warn = mark && `${game.phase}/${game.round}/${mark}`;
  if (warn && play.timerWarned !== warn && !(mark === 20 && play.timerWarned === `${game.phase}/${game.round}/10`)) {
    play.timerWarned = warn;
    announce(`${Math.ceil(left)} seconds left to move${play.state.table.takeover ? ", then a bot plays for you" : ""}.`);
  }
}

function renderPlayers() {
  const { table, you, game } = play.state;
  const box = $("players");
  box.replaceChildren(...table.seats.map((s) => {
    const tags = [];
    if (s.kind === "bot") tags.push(el("span", { class: "badge bot", text: s.person ? `bot (${s.bot}) for now` : `bot · ${s.bot}` }));
    if (s.kind === "open") tags.push(el("span", { class: "badge", text: "open seat" }));
    if (game && game.phase !== "over" && game.storyteller === s.seat) tags.push(el("span", { class: "badge teller", text: "storyteller" }));
    if (s.seat === 0) tags.push(el("span", { class: "badge", text: "creator" }));
    if (table.teams) {
      const pair = table.teams.find((t) => t.includes(s.seat));
      tags.push(el("span", { class: "badge team", text: `team ${table.teams.indexOf(pair) + 1}` }));
    }
    if (s.seat === you.seat && !play.watch) tags.push(el("span", { class: "badge", text: "you" }));
    if (s.kind === "human") {
      const online = s.connected ? "online" : "offline";
      tags.push(el("span", { class: "dot" + (s.connected ? " on" : ""), title: online }, el("span", { class: "visually-hidden", text: online })));
    }
    let status = null;
    if (game && game.phase !== "over" && !table.broken) {
      if (game.pending.includes(s.seat)) status = ["…", "still to act"];
      else if (game.phase !== "tell" && game.storyteller !== s.seat) status = ["✓", "done"];
    }
    return el("div", { class: "player" + (s.seat === you.seat && !play.watch ? " me" : ""), "data-seat": s.seat },
      rabbit(s.colour),
      el("div", { class: "who" }, el("div", { class: "name", text: s.name || "open seat" }), el("div", { class: "tags" }, tags)),
      el("span", { class: "status", title: "… still to act · ✓ done" }, status && el("span", { "aria-hidden": "true", text: status[0] }),
        status && el("span", { class: "visually-hidden", text: status[1] })),
      game ? el("span", { class: "score" }, el("span", { class: "visually-hidden", text: "score " }), String(game.scores[s.seat])) : null);
  }));
}

function renderLeave() {
  const { table, you, game } = play.state;
  const box = $("players");
  if (!play.watch && !table.broken && game && game.phase !== "over" && table.takeover && you.controller === "human") {
    box.append(el("button", { id: "leave-game", type: "button", class: "small leave",
      text: "Leave: a bot takes my seat",
      onclick: () => { if (confirm("Leave the game? A bot will play your seat; you can take it back later.")) send({ type: "leave" }); } }));
  }
}

function renderTrack() {
  const { table, game } = play.state;
  const track = $("track");
  track.hidden = !game;
  if (!game) return;
  let scores = game.scores;
  const last = game.last_round;
  // During a reveal the rabbits first stand where they were, then hop to their new scores.
  if (last && last.round > play.seenRound && play.hopped !== last.round) {
    scores = last.scores.map((v, i) => v - last.points[i]);
    if (play.hopTimer !== last.round) {
      play.hopTimer = last.round;
      setTimeout(() => { play.hopped = last.round; if (play.state) renderTrack(); }, 900);
    }
  }
  track.setAttribute("aria-label", "Scores: " + table.seats.map((s, seat) => `${seatName(seat)} ${game.scores[seat]}`).join(", ")
    + (table.score_limit ? `; the game ends at ${table.score_limit} points` : ""));
  const top = Math.max(table.score_limit || 0, ...scores, 10);
  if (track.dataset.top !== String(top)) {
    track.replaceChildren();
    track.dataset.top = String(top);
    const step = top > 40 ? 10 : 5;
    for (let v = 0; v <= top; v += step) {
      track.append(el("span", { class: "tick", style: `left:${pos(v, top)}%`, text: String(v) }));
    }
    if (table.score_limit) track.append(el("span", { class: "finish", style: `left:${pos(table.score_limit, top)}%`, title: "finish", text: "finish" }));
  }
  const sameScore = {};
  table.seats.forEach((s, seat) => {
    let node = track.querySelector(`[data-rabbit="${seat}"]`);
    if (!node) {
      node = rabbit(s.colour, "rabbit");
      node.dataset.rabbit = String(seat);
      node.setAttribute("data-rabbit", String(seat));
      track.append(node);
    }
    const stack = sameScore[scores[seat]] = (sameScore[scores[seat]] || 0) + 1;
    node.style.left = `calc(${pos(scores[seat], top)}% + ${(stack - 1) * 9}px)`;
    node.style.top = `${4 + (stack - 1) * 3}px`;
  });
}

function pos(value, top) { return 3 + 94 * Math.min(value, top) / top; }

function cardImage(card) {
  const caption = play.captions[String(card)];
  return el("img", { src: `/api/tables/${play.state.table.id}/cards/${card}`, alt: caption ? `card: ${caption}` : `card ${card}`, loading: "lazy" });
}

// refusal: for a card that cannot be chosen, what a click on it says (it stays focusable and
// aria-disabled, rather than a disabled button that swallows the click without a word).
function cardButton(card, { selectable, selected, mine, number, label, onclick, extra, refusal }) {
  const explained = !selectable && refusal;
  const button = el("button", {
    type: "button",
    class: ["card", selectable ? "selectable" : "", selected ? "selected" : "", mine ? "mine" : ""].join(" "),
    "data-card": card, "data-position": number !== undefined ? number - 1 : null,
    disabled: !selectable && !explained, "aria-disabled": explained ? "true" : null,
    onclick: explained ? () => toast(refusal) : onclick,
    "aria-pressed": selectable ? String(!!selected) : null,
  }, cardImage(card));
  if (number !== undefined) button.append(el("span", { class: "number" }, el("span", { class: "visually-hidden", text: "image " }), String(number)));
  button.append(el("span", { class: "check", "aria-hidden": "true", text: "✓" }));
  if (selected && !selectable) button.append(el("span", { class: "visually-hidden", text: "your vote" }));
  if (label) button.append(el("span", { class: "label", text: label }));
  if (extra) button.append(extra);
  return button;
}

function toggle(item, limit) {
  const at = play.selection.indexOf(item);
  if (at >= 0) play.selection.splice(at, 1);
  else {
    play.selection.push(item);
    while (play.selection.length > limit) play.selection.shift();
  }
  render();
}

