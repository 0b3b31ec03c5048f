// The Rules and History panels of the play page, and the words that say who played and who
// voted for a revealed card (shared by the reveal and the history). Loaded after app.js.
"use strict";

// The Rules / History panel: a non-modal dialog named by its heading. Opening it moves the focus
// into it; Close or Escape closes it and gives the focus back to the button that opened it.
function showPanel(title, ...children) {
  const panel = $("panel");
  if (panel.hidden) play.panelOpener = document.activeElement;
  $("panel-body").replaceChildren(el("h2", { id: "panel-title", tabindex: "-1", text: title }), ...children);
  panel.hidden = false;
  $("panel-title").focus();
}

function closePanel() {
  $("panel").hidden = true;
  const opener = play.panelOpener;
  play.panelOpener = null;
  if (opener && opener.isConnected && opener !== document.body) opener.focus();
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
    el("div", { class: "cards", role: "group", "aria-label": `round ${r.round + 1}'s board` }, r.board.map((card, position) => cardButton(card, {
      selectable: false, mine: r.board_owner[position] === r.storyteller,
      extra: el("span", { class: "label" }, ...cardWords(r, position, { compact: true })) })))))) : el("p", { text: "No round has been revealed yet." }));
}

// Who played a revealed card and who voted for it, in words (the chips and the star are only
// seen): "the storyteller's card, played by Ann", "votes: Bea, Cy". compact: the name alone is seen.
function cardWords(r, position, { compact } = {}) {
  const owner = r.board_owner[position];
  const teller = owner === r.storyteller;
  const voters = Object.entries(r.votes).filter(([, positions]) => positions.includes(position)).map(([seat]) => parseInt(seat, 10));
  const names = voters.map(seatName);
  return [
    el("span", { class: "owner" }, teller ? el("span", { "aria-hidden": "true", text: "★ " }) : null,
      el("span", { class: "visually-hidden", text: teller ? "the storyteller's card, played by " : "played by " }),
      seatName(owner), teller && !compact ? " (storyteller)" : null),
    el("span", { class: "visually-hidden", text: `; ${names.length ? `votes: ${names.join(", ")}` : "no votes"}` }),
    r.red_token === position ? el("span", { class: "visually-hidden", text: "; the red token" }) : null,
    compact || !voters.length ? null : el("span", { class: "voters", "aria-hidden": "true" }, voters.map((seat) =>
      el("span", { class: "chip", style: `background:${seatColour(seat)};color:${inkOn(seatColour(seat))}`, text: seatName(seat) }))),
  ];
}
