// dixit-ai tables: creating a table and joining one (the page's first two screens).
// Loaded after app.js, whose helpers it uses; plain JavaScript, text through textContent only.
"use strict";

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
    const about = el("span", { class: "bot-about note", id: `bot-about-${seat}` });
    select.setAttribute("aria-describedby", about.id);
    const describe = () => {
      const bot = OPTIONS.bots.find((b) => b.name === select.value);
      about.textContent = bot ? bot.description || "" : "";
    };
    select.addEventListener("change", describe);
    describe();
    list.append(el("label", {}, `Seat ${seat + 1}: if nobody joins,`, select, "plays", about));
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

