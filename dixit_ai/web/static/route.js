// dixit-ai tables: which screen this address opens. Loaded after every other script of the
// page but social.js (which routes its own parts after this).
"use strict";

// ------------------------------------------------------------------ routing

(function route() {
  const path = location.pathname;
  if (path.startsWith("/join/")) initJoin(decodeURIComponent(path.slice(6)));
  else if (path === "/play") initPlay();
  else if (path.startsWith("/watch/")) initWatch(decodeURIComponent(path.slice(7)));
  else initCreate().catch((error) => toast(error.message, true));
})();
