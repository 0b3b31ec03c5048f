// dixit-ai tables: what each phase of a game shows (lobby, tell, play, vote, reveal, end...).
// Loaded after app.js (render() calls these by the game's stage); text through textContent only.
"use strict";

function renderLobby(stage) {
  const { table, you } = play.state;
  banner(you.creator ? "Invite your friends, then start the game." : "Waiting for the creator to start the game…");
  const invite = `${location.origin}${table.invite_path}`;
  const input = el("input", { id: "invite-link", readonly: true, value: invite, "aria-label": "private invite link", onclick: (e) => e.target.select() });
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
  const parts = [el("h2", { text: "The table" }), seats];
  if (table.invite_path) {  // a spectator is told no invite link
    parts.push(el("p", { class: "hint", text: "Send this private link to the people you want to play with:" }),
      el("div", { class: "invite" }, input, copy));
  }
  if (table.watch_path) {
    parts.push(el("p", { class: "hint", text: "Others can watch (public information only) through this link:" }),
      el("div", { class: "invite" }, el("input", { id: "watch-link", readonly: true, value: `${location.origin}${table.watch_path}`,
        "aria-label": "spectator link", onclick: (e) => e.target.select() })));
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

// A broken table (its bots stopped, or it could not be restored): the server refuses every
// move, so the page says why in the banner's place and asks nobody to act.
function renderBrokenAlert(reason) {
  const box = $("broken");
  box.hidden = !reason;
  $("banner").hidden = !!reason;
  if (!reason) return;
  const text = reason.charAt(0).toUpperCase() + reason.slice(1);
  if ($("broken-reason").textContent !== text) $("broken-reason").textContent = text;
}

function renderBroken(stage, game) {
  stage.dataset.screen = "broken";
  play.selection = [];
  play.readingBase = null;
  const phase = { tell: "the storyteller's clue", play: "the playing of the cards", vote: "the vote", red: "the red token" };
  const where = !game ? "The game stopped before it could go on."
    : game.phase === "over" ? "The game had ended."
    : `The game stopped in round ${game.round + 1}, during ${phase[game.phase] || game.phase}.`;
  play.news = `This table is broken: the game cannot go on. ${$("broken-reason").textContent}`;
  stage.replaceChildren(el("h2", { text: "Where the game stopped" }),
    el("p", { id: "broken-where", text: where }),
    game && game.clue ? el("div", { class: "clue", id: "clue-text", text: game.clue }) : null,
    el("p", { class: "hint", text: "The scores on the left are as they stood. Nobody can move at this table any more: no turn is waiting for you." }));
}

function renderTakenOver(stage) {
  banner("A bot is playing your seat.");
  stage.dataset.screen = "taken-over";
  play.news = "A bot took your seat: you left or ran out of time. The button Take my seat back gives it back to you.";
  stage.replaceChildren(el("h2", { class: "visually-hidden", text: "A bot is playing your seat" }),
    el("p", { text: "You left or ran out of time, so a bot took over your seat." }),
    el("button", { id: "reclaim", class: "primary", type: "button", text: "Take my seat back", "data-autofocus": "always", onclick: () => send({ type: "reclaim" }) }));
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
      el("div", { class: "cards", role: "group", "aria-label": "your hand" }, game.hand.map((card) => cardButton(card, { selectable: false }))));
    return;
  }
  if (game.mode === "party") { renderAnnounce(stage); return; }
  banner("You are the storyteller: choose a card and say a clue.");
  stage.dataset.screen = "tell";
  const input = el("input", { id: "clue", maxlength: 200, placeholder: "a word, a sentence, a song…", value: play.clue, "aria-label": "your clue",
    oninput: (e) => { play.clue = e.target.value; counter.textContent = `${play.clue.length}/200`; submit.disabled = !ready(); } });
  const counter = el("span", { class: "counter", text: `${play.clue.length}/200` });
  const ready = () => play.selection.length === 1 && play.clue.trim().length > 0;
  const submit = el("button", { id: "tell", class: "primary", type: "button", text: play.outbox ? "Waiting to send…" : "Tell", disabled: !ready() || !!play.outbox,
    onclick: () => { send({ type: "tell", card: play.selection[0], clue: play.clue.trim() }); play.lastTell = play.refs; } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && ready()) submit.click(); });
  play.news = "Your turn: you are the storyteller. Choose a card from your hand and type a clue.";
  stage.replaceChildren(el("h2", { class: "visually-hidden", text: "You are the storyteller" }),
    el("p", { class: "hint", id: "tell-hint", text: "Pick a card from your hand, then give a clue that some, but not all, will find." }),
    el("div", { class: "tell-box" }, input, counter, submit),
    el("div", { class: "cards large", role: "group", "aria-label": "your hand" }, game.hand.map((card) => cardButton(card, {
      selectable: true, selected: play.selection.includes(card), onclick: () => toggle(card, 1),
    }))));
}

// Dixit Party: the storyteller says the clue before looking at the hand (no card).
function renderAnnounce(stage) {
  banner("You are the storyteller: say a clue before looking at your hand.");
  stage.dataset.screen = "announce";
  const input = el("input", { id: "clue", maxlength: 200, placeholder: "a word, a sentence, a song…", value: play.clue, "aria-label": "your clue",
    oninput: (e) => { play.clue = e.target.value; counter.textContent = `${play.clue.length}/200`; submit.disabled = !ready(); } });
  const counter = el("span", { class: "counter", text: `${play.clue.length}/200` });
  const ready = () => play.clue.trim().length > 0;
  const submit = el("button", { id: "announce-clue", class: "primary", type: "button", text: play.outbox ? "Waiting to send…" : "Announce", disabled: !ready() || !!play.outbox,
    onclick: () => { send({ type: "announce", clue: play.clue.trim() }); play.lastTell = play.refs; } });
  input.addEventListener("keydown", (e) => { if (e.key === "Enter" && ready()) submit.click(); });
  input.dataset.autofocus = "always";
  play.news = "Your turn: you are the storyteller. Type a clue before you see your hand.";
  stage.replaceChildren(el("h2", { class: "visually-hidden", text: "You are the storyteller" }),
    el("p", { class: "hint", text: "Dixit Party: your hand stays hidden until you have spoken. Say a clue that many players will read the same way; then everyone, you included, plays a card for it." }),
    el("div", { class: "tell-box" }, input, counter, submit));
}

// The clue, as the screen's heading ("Clue: “moon”" to a screen reader).
function clueHeading(text) {
  return el("h2", { class: "clue-line" }, el("span", { class: "visually-hidden", text: "Clue: " }),
    el("span", { class: "clue", id: "clue-text", text }));
}

// Said when a turn comes: whose clue, and what to do.
function turnNews(game) {
  const teller = game.storyteller === play.state.you.seat ? "your" : `${seatName(game.storyteller)}'s`;
  return `Your turn. ${teller.charAt(0).toUpperCase() + teller.slice(1)} clue is “${game.clue}”. ${$("banner-text").textContent}`;
}

function renderPlay(stage, game) {
  const me = play.state.you.seat;
  const clue = clueHeading(game.clue);
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
    play.news = turnNews(game);
    stage.replaceChildren(clue,
      el("div", { class: "action-row" }, el("p", { class: "hint", text: hint }), pass, submit),
      el("div", { class: "cards large", role: "group", "aria-label": "your hand" }, game.hand.map((card) => cardButton(card, {
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
    el("div", { class: "cards", role: "group", "aria-label": "your hand" }, game.hand.map((card) => cardButton(card, { selectable: false }))));
}

function renderVote(stage, game) {
  const me = play.state.you.seat;
  const clue = clueHeading(game.clue);
  const voting = game.pending.includes(me);
  const own = new Set(game.team_positions);
  const legal = new Set(game.legal_vote_positions);
  const max = game.max_votes;
  const board = el("div", { class: "cards large board", role: "group", "aria-label": "the board" }, game.board.map((card, position) => {
    const mine = own.has(position) || game.my_positions.includes(position);
    return cardButton(card, {
      selectable: voting && legal.has(position), mine, number: position + 1,
      selected: voting ? play.selection.includes(position) : game.my_votes.includes(position),
      label: game.my_positions.includes(position) ? "your card" : mine ? "your team's card" : null,
      onclick: () => toggle(position, max),
      refusal: voting && game.mode !== "party" && mine && !legal.has(position)
        ? (game.my_positions.includes(position) ? "That is your card: vote for the card you think is the storyteller's."
          : "That is your team's card: vote for the card you think is the storyteller's.")
        : null,
    });
  }));
  if (voting && game.mode === "party") {
    banner("Vote for the image you think most players will choose.");
    stage.dataset.screen = "vote";
    const submit = el("button", { id: "vote", class: "primary", type: "button", text: "Vote",
      disabled: play.selection.length !== 1, onclick: () => send({ type: "vote", positions: [...play.selection] }) });
    play.news = turnNews(game);
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
    play.news = turnNews(game);
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
  const clue = clueHeading(game.clue);
  const placing = game.pending.includes(me) && game.legal_red_positions.length > 0;
  const legal = new Set(game.legal_red_positions);
  const board = el("div", { class: "cards large board", role: "group", "aria-label": "the board" }, game.board.map((card, position) => cardButton(card, {
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
    play.news = turnNews(game);
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
  const board = el("div", { class: "cards board", role: "group", "aria-label": "the board" }, last.board.map((card, position) => {
    const owner = last.board_owner[position];
    const button = cardButton(card, { selectable: false, number: position + 1,
      label: null, extra: el("span", { class: "label" }, ...cardWords(last, position)) });
    if (owner === last.storyteller) button.classList.add("storyteller-card");
    if (last.red_token === position) {
      button.classList.add("red-token");
      button.append(el("span", { class: "red-mark", title: "the storyteller's red token", "aria-hidden": "true", text: "red token" }));
    }
    button.dataset.owner = String(owner);
    return button;
  }));
  const me = play.watch ? null : play.state.you.seat;
  const rows = last.points.map((points, seat) => el("tr", { "data-seat": seat },
    el("td", {}, rabbit(seatColour(seat)), " ", seatName(seat)),
    el("td", {}, reasonsOf(last, seat, me).map((r) => el("span", { class: "reason", text: `${r.points > 0 ? "+" : ""}${r.points}: ${r.reason}` }))),
    el("td", { class: "num", text: `+${points}` }),
    el("td", { class: "num", text: String(last.scores[seat]) })));
  const counting = play.readingBase && game.phase !== "over";
  const stay = counting && play.stay !== last.round ? el("button", { id: "stay", type: "button", class: "small",
    text: "Stay on this reveal", onclick: () => { play.stay = last.round; render(); } }) : null;
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
      counting ? el("span", { id: "reading", class: "note", text: "" }) : null, stay, next),
    board,
    el("div", { class: "points-wrap" }, el("table", { class: "points" }, el("caption", { class: "visually-hidden", text: "Points this round" }),
      el("thead", {}, el("tr", {}, el("th", { text: "Player" }), el("th", { text: "Why" }),
        el("th", { text: "Points" }), el("th", { text: "Score" }))), el("tbody", {}, rows)))));
  const scored = play.watch ? last.points.map((p, seat) => `${seatName(seat)} +${p}`).join(", ")
    : `you scored +${last.points[me]}, ${last.scores[me]} in all`;
  play.news = `Round ${last.round + 1} revealed: ${outcomeText}; ${scored}.`;
}

// A seat's reasons worded for whoever reads them: "you" on the reader's own row, the seat's
// name on the others (the server sends both wordings).
// Team Dixit: a partner's card is the team's, so one's own row says "your team's card" too.
function reasonsOf(last, seat, me) {
  if (!last.reasons_named || (seat === me && !play.state.table.teams)) return last.reasons[seat];
  const who = seat === me ? "your team" : seatName(seat);
  return last.reasons_named[seat].map((r) => ({ points: r.points,
    reason: r.reason.replaceAll(`${NAME_MARK}'s team`, seat === me ? who : `${who}'s team`).replaceAll(NAME_MARK, who) }));
}
const NAME_MARK = "\u2063NAME\u2063";

function renderEnd(stage, game) {
  const winners = game.winners.map(seatName);
  banner("The game is over.");
  stage.dataset.screen = "over";
  const order = game.scores.map((score, seat) => ({ score, seat })).sort((a, b) => b.score - a.score);
  const title = winners.length > 1 ? `${winners.join(" and ")} share the victory!` : `${winners[0]} wins!`;
  const rows = order.map(({ score, seat }) => el("tr", { class: game.winners.includes(seat) ? "winner" : "", "data-seat": seat },
    el("td", {}, rabbit(seatColour(seat)), " ", seatName(seat)), el("td", { class: "num final-score", text: String(score) })));
  const record = play.state.table.record_url;
  play.news = `The game is over. ${title}`;
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
  const doing = { play: "play their cards", vote: "vote", red: "place the red token" }[game.phase];
  banner(game.phase === "tell"
    ? `${teller} is choosing ${game.mode === "party" ? "a clue" : "a card and a clue"}…`
    : doing ? `Waiting for ${waiting} to ${doing}…` : `Waiting for ${waiting}…`);
  if (game.clue) play.news = `${$("banner-text").textContent} Clue: “${game.clue}”.`;
  stage.replaceChildren(el("p", { class: "spectating", text: "You are watching: you see what every player sees, never a hand." }),
    game.clue ? clueHeading(game.clue) : el("h2", { class: "visually-hidden", text: "Watching" }),
    game.board.length ? el("div", { class: "cards board", role: "group", "aria-label": "the board" }, game.board.map((card, position) => cardButton(card, { selectable: false, number: position + 1 }))) : null);
}
