// dixit-ai tables: reactions, my tables and seat requests (loaded after app.js, whose helpers
// el, $, api, toast, seats, keepSeat, enterTable, sendNow and play it uses).
// Text from the server reaches the page through textContent only.
"use strict";

// The reactions the server accepts (dixit_ai.web.social.REACTIONS), in the bar's order. Each is
// drawn with OpenMoji's SVG of its emoji (GET /reactions/NAME.svg), not with the viewer's emoji
// font (which may lack some); the emoji stays the image's alt text, for screen readers and copying.
const REACTION_EMOJI = {
  thumbs_up: "\u{1F44D}", laugh: "\u{1F602}", wow: "\u{1F62E}", think: "\u{1F914}",
  clap: "\u{1F44F}", heart: "\u2764\uFE0F",
};
const REACTION_LABEL = {
  thumbs_up: "thumbs up", laugh: "laugh", wow: "wow", think: "thinking", clap: "applause", heart: "heart",
};
const REACTION_SHOWN_MS = 4000;

// A reaction as an image (its emoji as alt text); the emoji alone for a name the page does not know.
function reactionImage(name, emoji) {
  if (!Object.hasOwn(REACTION_EMOJI, name)) return emoji || "";
  return el("img", { class: "emoji", src: `/reactions/${name}.svg`, alt: emoji || REACTION_EMOJI[name], draggable: "false" });
}

// ------------------------------------------------------------------ reactions

function renderSocial() {
  const bar = $("reactions");
  if (!bar.childElementCount) {
    for (const [name, emoji] of Object.entries(REACTION_EMOJI)) {
      bar.append(el("button", {
        type: "button", class: "small ghost", title: REACTION_LABEL[name],
        "aria-label": `react: ${REACTION_LABEL[name]}`, dataset: { reaction: name },
        onclick: () => { if (!sendNow({ type: "react", reaction: name })) toast("You are offline: the reaction was not sent", true); },
      }, reactionImage(name, emoji)));
    }
  }
  bar.hidden = !play.state;
  renderRequests();
}

function showReaction(message) {
  const who = message.from || (message.seat === null ? "a spectator" : `seat ${message.seat + 1}`);
  const item = el("div", { class: "reaction" }, reactionImage(message.reaction, message.emoji), ` ${who}`);
  $("reaction-feed").append(item);
  setTimeout(() => item.remove(), REACTION_SHOWN_MS);
}

// ------------------------------------------------------------------ the creator's seat requests

function renderRequests() {
  const box = $("reclaim-requests");
  const requests = (play.state && play.state.you && play.state.you.reclaim_requests) || [];
  box.hidden = requests.length === 0;
  box.replaceChildren(...requests.map((request) => el("p", { class: "request" },
    `${request.name} asks for the seat of ${request.seat_name || `seat ${request.seat + 1}`}.`,
    el("button", { type: "button", class: "small primary", dataset: { approve: request.id },
      onclick: () => sendNow({ type: "reclaim_answer", request: request.id, approve: true }) }, "Give the seat"),
    el("button", { type: "button", class: "small", dataset: { refuse: request.id },
      onclick: () => sendNow({ type: "reclaim_answer", request: request.id, approve: false }) }, "Refuse"))));
}

// ------------------------------------------------------------------ asking the creator for a seat

function initAsk(invite) {
  const form = $("ask-form");
  let polling = null;
  let waiting = null;  // the secret of the request waiting for the creator's answer
  // A page closed (or left) while its request waits withdraws it, so that the creator's list
  // drops it at once; a page that vanishes without unloading lapses after 120 s of silence.
  window.addEventListener("pagehide", () => {
    if (waiting) navigator.sendBeacon(`/api/reclaims/${encodeURIComponent(waiting)}/withdraw`);
    waiting = null;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const status = $("ask-status");
    try {
      const asked = await api(`/api/invites/${encodeURIComponent(invite)}/reclaim`, {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ seat: parseInt($("recover-seat").value, 10), name: $("ask-name").value.trim() }),
      });
      waiting = asked.request;
      status.textContent = "Asked: waiting for the table's creator…";
      $("ask-submit").disabled = true;
      clearInterval(polling);
      polling = setInterval(async () => {
        let answer;
        try { answer = await api(`/api/reclaims/${encodeURIComponent(asked.request)}`); } catch (error) {
          clearInterval(polling); waiting = null; status.textContent = error.message; $("ask-submit").disabled = false; return;
        }
        if (answer.status === "pending") return;
        clearInterval(polling);
        waiting = null;
        $("ask-submit").disabled = false;
        if (answer.status === "approved") { keepSeat(invite, answer.token); enterTable(answer.token); }
        else if (answer.status === "expired") status.textContent = "Its holder left this seat before the creator answered: join the table instead.";
        else status.textContent = "The table's creator refused to give you this seat.";
      }, 1500);
    } catch (error) {
      toast(error.message, true);
    }
  });
}

// ------------------------------------------------------------------ my tables

async function renderMyTables() {
  const held = seats();
  const invites = Object.keys(held).filter((invite) => held[invite] && held[invite].token);
  if (!invites.length) return;
  let found;
  try {
    found = await api("/api/my-tables", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ tokens: invites.map((invite) => held[invite].token).slice(-100) }),
    });
  } catch (error) { return; }
  const status = { lobby: "waiting to start", playing: "playing", over: "over" };
  const items = found.tables.map((table) => el("li", {},
    el("a", { href: `/play#t=${encodeURIComponent(table.token)}` }, table.title),
    el("span", { class: "note", text: ` ${status[table.status] || table.status}, seat ${table.seat + 1}` })));
  $("my-tables-list").replaceChildren(...items);
  $("my-tables").hidden = items.length === 0;
}

(function routeSocial() {
  const path = location.pathname;
  if (path.startsWith("/join/")) initAsk(decodeURIComponent(path.slice(6)));
  else if (path === "/") renderMyTables();
})();
