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

// ------------------------------------------------------------------ create a table

let OPTIONS = null;

async function initCreate() {
  show("screen-create");
  OPTIONS = await api("/api/options");
  const edition = $("create-edition");
  for (const e of OPTIONS.editions) {
    edition.append(el("option", { value: e.name, text: e.name, selected: e.name === "refresh-2021" }));
  }
  const deck = $("create-deck");
  for (const d of OPTIONS.decks) deck.append(el("option", { value: d.name, text: d.name, selected: d.name === OPTIONS.default_deck }));
  edition.addEventListener("change", syncCreate);
  $("create-variant").addEventListener("change", syncCreate);
  $("create-seats").addEventListener("input", syncCreate);
  $("create-name").value = localStorage.getItem("dixit-name") || "";
  syncCreate();
  $("create-form").addEventListener("submit", submitCreate);
  const poll = setInterval(async () => {  // bots warming up: offered as soon as they are ready
    if (!OPTIONS.bots.some((b) => b.status === "warming")) { clearInterval(poll); return; }
    OPTIONS = await api("/api/options");
    syncCreate();
  }, 2000);
}

// The variant chosen (Team Dixit, Dixit Party) if the edition has it, else null.
function chosenVariant(info) {
  const variants = info.variants || {};
  const select = $("create-variant");
  $("variant-row").hidden = Object.keys(variants).length === 0;
  for (const option of select.options) option.disabled = option.value !== "standard" && !variants[option.value];
  if (select.value !== "standard" && !variants[select.value]) select.value = "standard";
  return select.value === "standard" ? null : variants[select.value];
}

function syncCreate() {
  const info = OPTIONS.editions.find((e) => e.name === $("create-edition").value);
  const variant = chosenVariant(info);
  const seats = $("create-seats");
  const low = variant ? variant.min_players : info.min_players;
  const high = variant ? variant.max_players : info.max_players;
  seats.min = low; seats.max = high; seats.step = variant && variant.even_players ? 2 : 1;
  let n = parseInt(seats.value, 10) || low;
  n = Math.max(low, Math.min(high, n));
  if (variant && variant.even_players && n % 2) n = Math.min(high, n + 1);
  if (String(n) !== seats.value) seats.value = String(n);
  $("rounds-label").hidden = !variant;
  $("variant-help").hidden = !variant;
  $("variant-help").textContent = variant ? variant.rules_help.join(" ") : "";
  const limit = $("create-score-limit");
  $("score-limit-label").hidden = info.score_limit === null || !!variant;
  $("deck-end-note").hidden = info.score_limit !== null || !!variant;
  if (info.score_limit !== null && !limit.dataset.touched) limit.value = info.score_limit;
  limit.oninput = () => { limit.dataset.touched = "1"; };
  const party = !!variant && $("create-variant").value === "party";
  const list = $("create-bots");
  const previous = [...list.querySelectorAll("select")].map((s) => s.value);
  list.replaceChildren();
  for (let seat = 1; seat < n; seat++) {
    const select = el("select", { "data-seat": seat, "aria-label": `seat ${seat + 1}` });
    for (const bot of OPTIONS.bots) {
      const usable = party ? bot.party : bot.available;
      const problem = party ? bot.party_problem : bot.problem;
      const note = bot.status === "warming" ? " (warming up…)" : !usable ? (party ? " (cannot play Dixit Party)" : " (unavailable)") : "";
      select.append(el("option", { value: bot.name, text: bot.name + note,
        title: (!usable && problem) || bot.description, disabled: !usable }));
    }
    const ready = OPTIONS.bots.filter((b) => (party ? b.party : b.available));
    const kept = previous[seat - 1] && ready.some((b) => b.name === previous[seat - 1]) ? previous[seat - 1] : null;
    select.value = kept || (ready.some((b) => b.name === "random") ? "random" : (ready[0] || OPTIONS.bots[0]).name);
    list.append(el("label", {}, `Seat ${seat + 1}: if nobody joins,`, select, "plays"));
  }
}

async function submitCreate(event) {
  event.preventDefault();
  const info = OPTIONS.editions.find((e) => e.name === $("create-edition").value);
  const name = $("create-name").value.trim();
  localStorage.setItem("dixit-name", name);
  const body = {
    name,
    title: $("create-title").value.trim() || null,
    edition: info.name,
    seats: parseInt($("create-seats").value, 10),
    deck: $("create-deck").value,
    bots: [...$("create-bots").querySelectorAll("select")].map((s) => s.value),
    move_timer: $("create-timer").value ? parseInt($("create-timer").value, 10) : null,
    takeover: $("create-takeover").checked,
  };
  const variant = chosenVariant(info);
  if (variant) {
    body.variant = $("create-variant").value;
    body.rounds_per_player = parseInt($("create-rounds").value, 10);
  } else if (info.score_limit !== null) body.score_limit = parseInt($("create-score-limit").value, 10);
  $("create-submit").disabled = true;
  try {
    const made = await api("/api/tables", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    keepSeat(made.invite, made.token, made.recovery_code);
    enterTable(made.token);
  } catch (error) {
    toast(error.message, true);
  } finally {
    $("create-submit").disabled = false;
  }
}

// ------------------------------------------------------------------ join a table

async function initJoin(invite) {
  show("screen-join");
  const held = seatFor(invite);
  if (held) {  // this browser holds a seat at this table: back to it
    try {
      await api("/api/state", { headers: { "X-Seat-Token": held.token } });
      enterTable(held.token);
      return;
    } catch (error) { /* given up or cleaned up: join as anyone would */ }
  }
  try {
    const summary = await api(`/api/invites/${encodeURIComponent(invite)}`);
    const table = summary.table;
    $("join-title").textContent = `Join “${table.title}”`;
    const list = $("join-seats");
    list.replaceChildren(...table.seats.map((s) => el("li", {},
      rabbit(s.colour), s.name ? el("span", { text: s.name }) :
        el("span", { class: "open", text: `open seat (${s.bot} bot if nobody takes it)` }))));
    if (table.status !== "lobby") {
      $("join-form").hidden = true;
      list.after(el("p", { class: "note", text: "This game has already started." }));
      if (summary.watch_path) { $("join-watch").hidden = false; $("join-watch-link").href = summary.watch_path; }
    }
    const pick = $("recover-seat");
    for (const s of table.seats) if (s.person || s.kind === "human") pick.append(el("option", { value: s.seat, text: s.name || `seat ${s.seat + 1}` }));
  } catch (error) {
    toast(error.message, true);
    $("join-form").hidden = true;
  }
  $("join-name").value = localStorage.getItem("dixit-name") || "";
  $("join-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("join-name").value.trim();
    localStorage.setItem("dixit-name", name);
    try {
      const joined = await api(`/api/invites/${encodeURIComponent(invite)}/join`, {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ name }),
      });
      keepSeat(invite, joined.token, joined.recovery_code);
      enterTable(joined.token);
    } catch (error) {
      toast(error.message, true);
    }
  });
  $("recover-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const got = await api(`/api/invites/${encodeURIComponent(invite)}/recover`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ seat: parseInt($("recover-seat").value, 10), code: $("recover-code").value.trim() }),
      });
      keepSeat(invite, got.token, $("recover-code").value.trim());
      enterTable(got.token);
    } catch (error) {
      toast(error.message, true);
    }
  });
}

function enterTable(token) {
  location.href = `/play#t=${encodeURIComponent(token)}`;
}

// ------------------------------------------------------------------ play

const play = {
  token: null, watch: null, socket: null, state: null, selection: [], clue: "", seenRound: -1,
  hopped: -1, hopTimer: -1, retry: 500, timerBase: null, readingBase: null, refs: 0,
  outbox: null, captions: {}, captionsFor: null, history: null, myTurnKey: null,
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
  $("panel-close").onclick = () => { $("panel").hidden = true; };
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
    $("offline").hidden = true;
    play.retry = 500;
  };
  socket.onmessage = (event) => receive(JSON.parse(event.data));
  socket.onclose = (event) => {
    $("connection").classList.remove("on");
    if (play.socket !== socket) return;
    if (event.code >= 4400 && event.code < 4500 && event.code !== 4503) return;
    $("offline").hidden = false;
    setTimeout(connect, play.retry);
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
  if (message.type === "notice") { $("notice").textContent = message.message; $("notice").hidden = false; return; }
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
  const { you, game } = play.state;
  return !play.watch && game && game.phase !== "over" && you.controller === "human" && game.pending.includes(you.seat);
}

function notifyTurn() {
  const game = play.state.game;
  const key = myTurn() ? `${game.phase}/${game.round}` : null;
  if (key && key !== play.myTurnKey) {
    const what = { tell: "you are the storyteller", play: "choose your card", vote: "vote", red: "place the red token" }[game.phase];
    $("announce").textContent = `Your turn: ${what}.`;
    if ($("sound").checked) beep();
  }
  play.myTurnKey = key;
  document.title = `${key ? "● Your turn · " : ""}${play.state.table.title} · dixit-ai`;
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

function showPanel(title, ...children) {
  $("panel-body").replaceChildren(el("h2", { text: title }), ...children);
  $("panel").hidden = false;
}

function showHelp() {
  const { table } = play.state;
  showPanel("How to play", el("ul", {}, table.rules_help.map((line) => el("li", { text: line }))),
    el("p", { class: "note", text: table.fairness.experiment
      ? `This table is an experiment: its seed (${table.fairness.seed}) was chosen and is known to all, so the deal is not secret.`
      : "The deal is secret: the server drew the seed, and publishes it with its salt when the game ends. Check it against this commitment:" }),
    el("p", { class: "fair", id: "commitment", text: `commitment ${table.fairness.commitment}` }),
    table.fairness.salt ? el("p", { class: "fair", text: `seed ${table.fairness.seed} · salt ${table.fairness.salt}` }) : null);
}

function showHistory(rounds) {
  play.history = null;
  showPanel("Earlier rounds", rounds.length ? el("ol", { id: "history-list" }, rounds.map((r) => el("li", { "data-round": r.round },
    el("h3", {}, `${seatName(r.storyteller)}: `, el("span", { class: "clue", text: r.clue })),
    el("div", { class: "cards" }, r.board.map((card, position) => cardButton(card, { selectable: false,
      label: seatName(r.board_owner[position]), mine: r.board_owner[position] === r.storyteller })))))) : el("p", { text: "No round has been revealed yet." }));
}

function seatName(seat) {
  const s = play.state.table.seats[seat];
  return s && s.name ? s.name : `seat ${seat + 1}`;
}

function seatColour(seat) { return play.state.table.seats[seat].colour; }

function render() {
  const { table, you, game } = play.state;
  $("table-title").textContent = `${table.title} · ${table.edition}` + (table.fairness.experiment ? " · experiment (seed known to all)" : "") + (play.watch ? " · watching" : "");
  renderPlayers();
  renderLeave();
  renderTrack();
  const stage = $("stage");
  if (table.broken) { stage.replaceChildren(el("p", { text: table.broken })); return; }
  if (!game) { renderLobby(stage); return; }
  const last = game.last_round;
  if (last && last.round > play.seenRound) { renderReveal(stage, last, game); return; }
  if (game.phase === "over") { renderEnd(stage, game); return; }
  if (play.watch) { renderWatch(stage, game); return; }
  if (you.controller === "bot") { renderTakenOver(stage); return; }
  if (game.phase === "tell") renderTell(stage, game);
  else if (game.phase === "play") renderPlay(stage, game);
  else if (game.phase === "red") renderRed(stage, game);
  else renderVote(stage, game);
}

function banner(text) { $("banner-text").textContent = text; }

function tickTimer() {
  const box = $("timer");
  const reading = $("reading");
  if (reading && play.readingBase) {
    const left = Math.max(0, play.readingBase.left - (performance.now() - play.readingBase.at) / 1000);
    reading.textContent = `next round in ${Math.ceil(left)} s`;
    if (left <= 0) { play.readingBase = null; const next = $("continue"); if (next) next.click(); }
  }
  if (!play.timerBase || !myTurn()) { box.textContent = ""; return; }
  const left = Math.max(0, play.timerBase.left - (performance.now() - play.timerBase.at) / 1000);
  box.textContent = `time left: ${Math.ceil(left)} s`;
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
    if (s.kind === "human") tags.push(el("span", { class: "dot" + (s.connected ? " on" : ""), title: s.connected ? "online" : "offline" }));
    let status = "";
    if (game && game.phase !== "over") {
      if (game.pending.includes(s.seat)) status = "…";
      else if (game.phase !== "tell" && game.storyteller !== s.seat) status = "✓";
    }
    return el("div", { class: "player" + (s.seat === you.seat && !play.watch ? " me" : ""), "data-seat": s.seat },
      rabbit(s.colour),
      el("div", { class: "who" }, el("div", { class: "name", text: s.name || "open seat" }), el("div", { class: "tags" }, tags)),
      el("span", { class: "status", text: status, title: "… still to act · ✓ done" }),
      game ? el("span", { class: "score", text: String(game.scores[s.seat]) }) : null);
  }));
}

function renderLeave() {
  const { table, you, game } = play.state;
  const box = $("players");
  if (!play.watch && game && game.phase !== "over" && table.takeover && you.controller === "human") {
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
  const top = Math.max(table.score_limit || 0, ...scores, 10);
  if (track.dataset.top !== String(top)) {
    track.replaceChildren();
    track.dataset.top = String(top);
    const step = top > 40 ? 10 : 5;
    for (let v = 0; v <= top; v += step) {
      track.append(el("span", { class: "tick", style: `left:${pos(v, top)}%`, text: String(v) }));
    }
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

function cardButton(card, { selectable, selected, mine, number, label, onclick, extra }) {
  const button = el("button", {
    type: "button",
    class: ["card", selectable ? "selectable" : "", selected ? "selected" : "", mine ? "mine" : ""].join(" "),
    "data-card": card, disabled: !selectable, onclick,
  }, cardImage(card));
  if (number !== undefined) button.append(el("span", { class: "number", text: String(number) }));
  button.append(el("span", { class: "check", text: "✓" }));
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

function renderLobby(stage) {
  const { table, you } = play.state;
  banner(you.creator ? "Invite your friends, then start the game." : "Waiting for the creator to start the game…");
  const invite = `${location.origin}${table.invite_path}`;
  const input = el("input", { id: "invite-link", readonly: true, value: invite, onclick: (e) => e.target.select() });
  const copy = el("button", {
    id: "copy-invite", type: "button", class: "small", text: "Copy link",
    onclick: async () => {
      try { await navigator.clipboard.writeText(invite); toast("Invite link copied"); }
      catch (e) { input.select(); document.execCommand("copy"); toast("Invite link copied"); }
    },
  });
  const seats = el("ul", { class: "seat-list" }, table.seats.map((s) => el("li", {},
    rabbit(s.colour),
    s.name ? el("span", { text: s.name }) : el("span", { class: "open", text: `open seat: ${s.bot} bot plays if nobody joins` }),
    s.seat === you.seat ? el("span", { class: "badge", text: "you" }) : null)));
  const parts = [el("h2", { text: "The table" }), seats, el("p", { class: "hint", text: "Send this private link to the people you want to play with:" }),
    el("div", { class: "invite" }, input, copy)];
  if (table.watch_path) {
    parts.push(el("p", { class: "hint", text: "Others can watch (public information only) through this link:" }),
      el("div", { class: "invite" }, el("input", { id: "watch-link", readonly: true, value: `${location.origin}${table.watch_path}`, onclick: (e) => e.target.select() })));
  }
  const held = seatFor(inviteOf(table));
  if (held && held.code) {
    parts.push(el("p", { class: "hint" }, "Your recovery code, in case you lose this page's link: ", el("span", { class: "code", id: "recovery-code", text: held.code })));
  }
  const variantName = table.teams ? "Team Dixit, " : table.mode === "party" ? "Dixit Party, " : "";
  const ends = table.ends === "rounds" ? `${table.n_rounds} rounds (each player tells ${table.n_rounds / table.n_players === 1 ? "once" : `${table.n_rounds / table.n_players} times`})`
    : table.ends === "score" ? `to ${table.score_limit} points` : "until the draw pile runs out";
  const rules = `${table.edition}, ${variantName}${table.n_players} players, ${ends}`
    + (table.move_timer ? `, ${table.move_timer} s per move` : "") + `, deck ${table.deck}`
    + (table.fairness.experiment ? `; experiment: the seed ${table.fairness.seed} is known to all` : "; secret deal, commitment " + table.fairness.commitment.slice(0, 16) + "…");
  parts.push(el("p", { class: "note", text: rules }));
  if (you.creator) parts.push(el("button", { id: "start", class: "primary", type: "button", text: "Start the game", onclick: () => send({ type: "start" }) }));
  else if (!play.watch) parts.push(el("button", { id: "leave", type: "button", text: "Leave the table", onclick: () => send({ type: "leave" }) }));
  stage.dataset.screen = "lobby";
  stage.replaceChildren(...parts);
}

function renderTakenOver(stage) {
  banner("A bot is playing your seat.");
  stage.dataset.screen = "taken-over";
  stage.replaceChildren(el("p", { text: "You left or ran out of time, so a bot took over your seat." }),
    el("button", { id: "reclaim", class: "primary", type: "button", text: "Take my seat back", onclick: () => send({ type: "reclaim" }) }));
}

function waitingFor(game) {
  return game.pending.map(seatName).join(", ");
}

function renderTell(stage, game) {
  const me = play.state.you.seat;
  if (game.storyteller !== me) {
    banner(game.mode === "party" ? `${seatName(game.storyteller)} is the storyteller and is saying a clue…`
      : `${seatName(game.storyteller)} is the storyteller and is choosing a card and a clue…`);
    stage.dataset.screen = "wait-tell";
    stage.replaceChildren(el("h2", { text: "Your hand" }),
      el("div", { class: "cards" }, game.hand.map((card) => cardButton(card, { selectable: false }))));
    return;
  }
  if (game.mode === "party") { renderAnnounce(stage); return; }
  banner("You are the storyteller: choose a card and say a clue.");
  stage.dataset.screen = "tell";
  const input = el("input", { id: "clue", maxlength: 200, placeholder: "a word, a sentence, a song…", value: play.clue,
    oninput: (e) => { play.clue = e.target.value; counter.textContent = `${play.clue.length}/200`; submit.disabled = !ready(); } });
  const counter = el("span", { class: "counter", text: `${play.clue.length}/200` });
  const ready = () => play.selection.length === 1 && play.clue.trim().length > 0;
  const submit = el("button", { id: "tell", class: "primary", type: "button", text: play.outbox ? "Waiting to send…" : "Tell", disabled: !ready() || !!play.outbox,
    onclick: () => { send({ type: "tell", card: play.selection[0], clue: play.clue.trim() }); play.lastTell = play.refs; } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && ready()) submit.click(); });
  stage.replaceChildren(
    el("p", { class: "hint", text: "Pick a card from your hand, then give a clue that some, but not all, will find." }),
    el("div", { class: "tell-box" }, input, counter, submit),
    el("div", { class: "cards large" }, game.hand.map((card) => cardButton(card, {
      selectable: true, selected: play.selection.includes(card), onclick: () => toggle(card, 1),
    }))));
  if (document.activeElement !== input && play.selection.length) input.focus();
}

// Dixit Party: the storyteller says the clue before looking at the hand (no card).
function renderAnnounce(stage) {
  banner("You are the storyteller: say a clue before looking at your hand.");
  stage.dataset.screen = "announce";
  const input = el("input", { id: "clue", maxlength: 200, placeholder: "a word, a sentence, a song…", value: play.clue,
    oninput: (e) => { play.clue = e.target.value; counter.textContent = `${play.clue.length}/200`; submit.disabled = !ready(); } });
  const counter = el("span", { class: "counter", text: `${play.clue.length}/200` });
  const ready = () => play.clue.trim().length > 0;
  const submit = el("button", { id: "announce-clue", class: "primary", type: "button", text: play.outbox ? "Waiting to send…" : "Announce", disabled: !ready() || !!play.outbox,
    onclick: () => { send({ type: "announce", clue: play.clue.trim() }); play.lastTell = play.refs; } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && ready()) submit.click(); });
  stage.replaceChildren(
    el("p", { class: "hint", text: "Dixit Party: your hand stays hidden until you have spoken. Say a clue that many players will read the same way; then everyone, you included, plays a card for it." }),
    el("div", { class: "tell-box" }, input, counter, submit));
  if (document.activeElement !== input) input.focus();
}

function renderPlay(stage, game) {
  const me = play.state.you.seat;
  const clue = el("div", { class: "clue", id: "clue-text", text: game.clue });
  if (game.pending.includes(me)) {
    const n = game.cards_to_play;
    const partner = game.partner === null ? null : seatName(game.partner);
    const who = game.storyteller === me ? "You said a clue" : `${seatName(game.storyteller)} said a clue`;
    banner(game.can_pass ? `${who}. Give a card for your team, or let ${partner} give it.`
      : `${who}. Choose ${n === 1 ? "the card" : `${n} cards`} that best fit${n === 1 ? "s" : ""} it.`);
    stage.dataset.screen = "play";
    const submit = el("button", { id: "play", class: "primary", type: "button", text: n === 1 ? "Play this card" : `Play these ${n} cards`,
      disabled: play.selection.length !== n, onclick: () => send({ type: "play", cards: [...play.selection] }) });
    const pass = game.can_pass ? el("button", { id: "pass", type: "button", text: `Let ${partner} give`,
      onclick: () => send({ type: "play", cards: [] }) }) : null;
    const hint = game.mode === "party" ? "Pick the card you think most players will see in the clue; everyone, the storyteller included, plays one."
      : game.teams && game.partner === game.storyteller ? `Your partner ${partner} is the storyteller: give a card that will mislead the other teams.`
      : game.can_pass ? `One of you gives your team's card; the other votes. Passing is seen by everyone; nobody sees ${partner}'s hand.`
      : `Pick ${n} card${n > 1 ? "s" : ""} from your hand to go face down with the storyteller's.`;
    stage.replaceChildren(clue,
      el("div", { class: "action-row" }, el("p", { class: "hint", text: hint }), pass, submit),
      el("div", { class: "cards large" }, game.hand.map((card) => cardButton(card, {
        selectable: true, selected: play.selection.includes(card), onclick: () => toggle(card, n),
      }))));
    return;
  }
  banner(`Waiting for ${waitingFor(game)} to play…`);
  stage.dataset.screen = "wait-play";
  stage.replaceChildren(clue,
    el("h2", { text: game.storyteller === me ? "Your card" : "You played" }),
    el("div", { class: "cards" }, game.my_cards.map((card) => cardButton(card, { selectable: false, mine: true }))),
    el("h2", { text: "Your hand" }),
    el("div", { class: "cards" }, game.hand.map((card) => cardButton(card, { selectable: false }))));
}

function renderVote(stage, game) {
  const me = play.state.you.seat;
  const clue = el("div", { class: "clue", id: "clue-text", text: game.clue });
  const voting = game.pending.includes(me);
  const own = new Set(game.team_positions);
  const legal = new Set(game.legal_vote_positions);
  const max = game.max_votes;
  const board = el("div", { class: "cards large board" }, game.board.map((card, position) => {
    const mine = own.has(position) || game.my_positions.includes(position);
    return cardButton(card, {
      selectable: voting && legal.has(position), mine, number: position + 1,
      selected: voting ? play.selection.includes(position) : game.my_votes.includes(position),
      label: game.my_positions.includes(position) ? "your card" : mine ? "your team's card" : null,
      onclick: () => toggle(position, max),
    });
  }));
  if (voting && game.mode === "party") {
    banner("Vote for the image you think most players will choose.");
    stage.dataset.screen = "vote";
    const submit = el("button", { id: "vote", class: "primary", type: "button", text: "Vote",
      disabled: play.selection.length !== 1, onclick: () => send({ type: "vote", positions: [...play.selection] }) });
    stage.replaceChildren(clue, el("div", { class: "action-row" }, el("p", { class: "hint",
      text: "Dixit Party: you score the number of players on the same image as you (at most 5); your own card may be chosen; alone, or on the storyteller's red-token image, you score 0." }), submit), board);
    return;
  }
  if (voting) {
    banner(max > 1 ? "Vote for the storyteller's card (you may add a second vote)." : "Vote for the storyteller's card.");
    stage.dataset.screen = "vote";
    const submit = el("button", { id: "vote", class: "primary", type: "button",
      text: play.selection.length > 1 ? "Cast both votes" : "Vote",
      disabled: play.selection.length < 1, onclick: () => send({ type: "vote", positions: [...play.selection] }) });
    stage.replaceChildren(clue, el("div", { class: "action-row" }, el("p", { class: "hint", text: max > 1
      ? "Pick the card you think is the storyteller's; a second pick is allowed in this game. Yours is marked."
      : "Pick the card you think is the storyteller's. Yours is marked and cannot be chosen." }), submit), board);
    return;
  }
  banner(game.storyteller === me ? `Your clue is on the table; waiting for ${waitingFor(game)} to vote…` : `Waiting for ${waitingFor(game)} to vote…`);
  stage.dataset.screen = "wait-vote";
  stage.replaceChildren(clue, board);
}

// Dixit Party: after the votes, the storyteller secretly puts the red token on one image.
function renderRed(stage, game) {
  const me = play.state.you.seat;
  const clue = el("div", { class: "clue", id: "clue-text", text: game.clue });
  const placing = game.pending.includes(me) && game.legal_red_positions.length > 0;
  const legal = new Set(game.legal_red_positions);
  const board = el("div", { class: "cards large board" }, game.board.map((card, position) => cardButton(card, {
    selectable: placing && legal.has(position), mine: game.my_positions.includes(position), number: position + 1,
    selected: placing ? play.selection.includes(position) : game.my_votes.includes(position),
    label: game.my_positions.includes(position) ? "your card" : null,
    onclick: () => toggle(position, 1),
  })));
  if (placing) {
    banner("Place the red token: its image's voters score 0.");
    stage.dataset.screen = "red";
    const submit = el("button", { id: "red", class: "primary", type: "button", text: "Place the red token",
      disabled: play.selection.length !== 1, onclick: () => send({ type: "red", position: play.selection[0] }) });
    stage.replaceChildren(clue, el("div", { class: "action-row" }, el("p", { class: "hint",
      text: "Secretly put the red token on one image (the others see it at the reveal): whoever voted for it scores nothing this round." }), submit), board);
    return;
  }
  banner(`Waiting for ${seatName(game.storyteller)} to place the red token…`);
  stage.dataset.screen = "wait-red";
  stage.replaceChildren(clue, board);
}

function renderReveal(stage, last, game) {
  banner(`Round ${last.round + 1} revealed`);
  stage.dataset.screen = "reveal";
  const outcomeText = last.red_token !== null && last.red_token !== undefined
    ? `The red token is on image ${last.red_token + 1}`
    : { all: "Everyone found the storyteller's card", none: "Nobody found the storyteller's card",
      some: "Some, but not all, found the storyteller's card" }[last.outcome];
  const votersOf = {};
  for (const [seat, positions] of Object.entries(last.votes)) {
    for (const p of positions) (votersOf[p] = votersOf[p] || []).push(parseInt(seat, 10));
  }
  const board = el("div", { class: "cards board" }, last.board.map((card, position) => {
    const owner = last.board_owner[position];
    const voters = el("div", { class: "voters" }, (votersOf[position] || []).map((seat) =>
      el("span", { class: "chip", style: `background:${seatColour(seat)}`, text: seatName(seat) })));
    const button = cardButton(card, { selectable: false, number: position + 1,
      label: null, extra: el("span", { class: "label" },
        el("span", { text: owner === last.storyteller ? `★ ${seatName(owner)} (storyteller)` : seatName(owner) }), voters) });
    if (owner === last.storyteller) button.classList.add("storyteller-card");
    if (last.red_token === position) {
      button.classList.add("red-token");
      button.append(el("span", { class: "red-mark", title: "the storyteller's red token", text: "red token" }));
    }
    button.dataset.owner = String(owner);
    return button;
  }));
  const rows = last.points.map((points, seat) => el("tr", { "data-seat": seat },
    el("td", {}, rabbit(seatColour(seat)), " ", seatName(seat)),
    el("td", {}, last.reasons[seat].map((r) => el("span", { class: "reason", text: `${r.points > 0 ? "+" : ""}${r.points}: ${r.reason}` }))),
    el("td", { class: "num", text: `+${points}` }),
    el("td", { class: "num", text: String(last.scores[seat]) })));
  const next = el("button", { id: "continue", class: "primary", type: "button",
    text: game.phase === "over" ? "See the final scores" : "Next round",
    onclick: () => {
      play.seenRound = last.round;
      if (!play.watch) {
        sessionStorage.setItem(`dixit-seen-${play.token}`, String(last.round));
        sendNow({ type: "seen", round: last.round });
      }
      play.selection = [];
      render();
    } });
  stage.replaceChildren(el("div", { class: "reveal" },
    el("h2", {}, `${seatName(last.storyteller)} told `, el("span", { class: "clue", text: last.clue })),
    el("div", { class: "action-row" }, el("div", { class: `outcome ${last.outcome}`, text: outcomeText }),
      play.readingBase && game.phase !== "over" ? el("span", { id: "reading", class: "note", text: "" }) : null, next),
    board,
    el("table", { class: "points" }, el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Why" }),
      el("th", { text: "Points" }), el("th", { text: "Score" }))), el("tbody", {}, rows))));
}

function renderEnd(stage, game) {
  const winners = game.winners.map(seatName);
  banner("The game is over.");
  stage.dataset.screen = "over";
  const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
  const title = winners.length > 1 ? `${winners.join(" and ")} share the victory!` : `${winners[0]} wins!`;
  const rows = order.map(({ score, seat }) => el("tr", { class: game.winners.includes(seat) ? "winner" : "", "data-seat": seat },
    el("td", {}, rabbit(seatColour(seat)), " ", seatName(seat)), el("td", { class: "num final-score", text: String(score) })));
  const record = play.state.table.record_url;
  stage.replaceChildren(el("div", { class: "final" },
    rabbit(game.winners.length === 1 ? seatColour(game.winners[0]) : "#f2c14e", "trophy"),
    el("h2", { id: "winners", text: title }),
    el("table", { class: "points", id: "final-scores" }, el("tbody", {}, rows)),
    el("p", { class: "fair", id: "deal", text: `seed ${play.state.table.fairness.seed} · salt ${play.state.table.fairness.salt} · commitment ${play.state.table.fairness.commitment}` }),
    el("div", { class: "actions" },
      record ? el("a", { class: "button", id: "record-link", href: record, download: "", text: "Download the game record" }) : null,
      play.state.you.creator && !play.state.table.rematch ? el("button", { id: "rematch", class: "primary", type: "button", text: "Rematch: same seats, new deal", onclick: () => send({ type: "rematch" }) }) : null,
      el("a", { class: "button", href: "/", text: "Open a new table" }))));
}

function renderWatch(stage, game) {
  stage.dataset.screen = `watch-${game.phase}`;
  const teller = seatName(game.storyteller);
  const waiting = waitingFor(game);
  banner(game.phase === "tell" ? `${teller} is choosing a card and a clue…` : `Waiting for ${waiting} to ${game.phase}…`);
  stage.replaceChildren(el("p", { class: "spectating", text: "You are watching: you see what every player sees, never a hand." }),
    game.clue ? el("div", { class: "clue", id: "clue-text", text: game.clue }) : null,
    game.board.length ? el("div", { class: "cards board" }, game.board.map((card, position) => cardButton(card, { selectable: false, number: position + 1 }))) : null);
}

// ------------------------------------------------------------------ routing

(function route() {
  const path = location.pathname;
  if (path.startsWith("/join/")) initJoin(decodeURIComponent(path.slice(6)));
  else if (path === "/play") initPlay();
  else if (path.startsWith("/watch/")) initWatch(decodeURIComponent(path.slice(7)));
  else initCreate().catch((error) => toast(error.message, true));
})();
