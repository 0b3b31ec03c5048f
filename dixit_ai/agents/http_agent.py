"""An agent backed by a vision-language model served over HTTP (OpenAI-compatible chat API).

:class:`HttpAgent` sends the cards it must choose among as images (base64 ``data:`` URLs) with
the clue to a ``/chat/completions`` endpoint (vLLM, llama.cpp's server, Ollama, a hosted API...)
and asks for a JSON answer: ``{"card": k}`` to vote or play, ``{"card": k, "clue": "..."}`` to
tell, where ``k`` is the 1-based label of a card as the prompt shows it. Dixit Party adds two
decisions: ``announce`` (``{"clue": "..."}``, no card and no image: the storyteller speaks before
looking at the hand) and ``red_token`` (``{"card": k}``, a board image). An answer is one JSON
object, alone or in one Markdown code fence (an object inside prose is refused, never extracted),
and is checked against the view's legal moves; an invalid answer is sent back with the reason, at
most ``max_retries`` times, and if the model still does not answer validly the agent raises
:class:`InvalidAnswerError`. A failed request (unreachable, an HTTP error, a timeout, a connection
closed or cut off mid-answer, no chat completion) is retried as often, then raises
:class:`EndpointError` (:class:`EndpointTimeout` for a timeout).
The match runner records that failure; the agent never substitutes a move of its own.

Limits on one request: ``timeout`` is a wall-clock deadline over the whole request (looking up
the name, connecting to each of its addresses, sending, waiting, and reading the answer, an error
response's too), not a limit on each socket read, so an endpoint that
drips its answer a byte at a time fails at ``timeout`` like a silent one; an answer larger than
:data:`MAX_RESPONSE_BYTES` (4 MiB) is an :class:`EndpointError`, refused from its
``Content-Length`` or as soon as that many bytes have arrived. Redirects are never followed (the
API key would go to the new address, which would choose the move): a 3xx response is an
:class:`EndpointError` naming the address it points to, to be set as ``base_url`` if trusted.
The API key is sent only over https, or over plain http to a loopback host (127.0.0.0/8,
``::1``, ``localhost``), which is always reached directly, never through a proxy from the
environment: an ``api_key_env`` with a plain-http ``base_url`` elsewhere is refused when the agent
is made, unless ``allow_insecure_key: true`` says to send it in clear text anyway.

Configured by a YAML file in ``configs/agents/`` (see ``http-example.yaml``)::

    name: my-vlm
    entry_point: dixit_ai.agents.http_agent:HttpAgent
    kwargs:
      base_url: http://127.0.0.1:8000/v1
      model: Qwen/Qwen2.5-VL-7B-Instruct
      api_key_env: OPENAI_API_KEY     # the key is read from this variable, never stored

Standard library only (``urllib``): no extra dependency. Requests to one endpoint are limited to
``concurrency`` in flight at once across every agent of the process (a semaphore per base URL;
an agent asking a different limit there, while one holding the first lives, is refused).
The prompts and the checks of the answers are in :mod:`dixit_ai.agents.http_protocol`, the
request's deadline and limits in :mod:`dixit_ai.agents.http_transport`.
"""

from __future__ import annotations

import base64
import http.client
import io
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, TypeVar

import numpy as np

from dixit_ai.agents.base import Announcement, Choice, Story
from dixit_ai.agents.http_protocol import (
    InvalidAnswerError,
    Question,
    announce_question,
    parse_answer,
    play_question,
    red_token_question,
    tell_question,
    vote_question,
)
from dixit_ai.agents.http_transport import (
    MAX_RESPONSE_BYTES,
    Deadline,
    DeadlineRequest,
    EndpointError,
    EndpointTimeout,
    HttpAgentError,
    check_key_transport,
    endpoint_key,
    endpoint_semaphore,
    opener,
)
from dixit_ai.rules import View

__all__ = [
    "MAX_RESPONSE_BYTES",
    "EndpointError",
    "EndpointTimeout",
    "HttpAgent",
    "HttpAgentError",
    "InvalidAnswerError",
    "parse_answer",
]

T = TypeVar("T")


class HttpAgent:
    """A player whose decisions come from a model behind an OpenAI-compatible endpoint.

    Args:
        name: The display name.
        base_url: The API root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is
            appended).
        model: The model name the endpoint serves.
        api_key_env: The environment variable holding the API key (sent as a bearer token);
            ``None`` sends no key. The key itself is never stored in a config or a record.
        deck: The game's deck (a spec such as ``"dream"`` or a ``Deck``): card images come
            from it.
        timeout: Seconds one request may take in all: a wall-clock deadline over the name
            lookup, connecting,
            sending, waiting and reading the whole answer (an answer dripped slowly fails at
            it too), raising :class:`EndpointTimeout`. The response body is also limited to
            :data:`MAX_RESPONSE_BYTES`, and a redirect is refused, never followed.
        max_retries: Further requests after an invalid answer or a failed request (so at most
            ``1 + max_retries`` requests per decision).
        concurrency: Requests in flight at once to this endpoint, across the process: one
            limit per ``base_url``, so every agent of the process on it must give the same
            (a different one is refused with a ``ValueError`` while an agent holding the
            first lives).
        temperature: Sampling temperature sent with each request.
        max_tokens: Upper bound on the answer's length.
        json_mode: Send ``response_format: {"type": "json_object"}`` (turn off for servers that
            reject it; the prompt asks for JSON either way).
        image_size: Longest side, in pixels, of the images sent (``None``: the deck's size).
        image_format: ``"PNG"`` or ``"JPEG"``.
        seed: Sent as the request's ``seed`` where given (servers that honour it answer
            reproducibly).
        extra_body: More fields for every request body (server-specific options).
        allow_insecure_key: Send the API key over plain http to a host that is not loopback
            (in clear text, to the network and to any proxy on the way). Without it such a
            ``base_url`` with an ``api_key_env`` is refused: a key is sent only over https,
            or over http to 127.0.0.0/8, ``::1`` or ``localhost``, which are always reached
            directly, never through a proxy from the environment.
    """

    def __init__(
        self,
        *,
        name: str = "http",
        base_url: str,
        model: str,
        api_key_env: str | None = None,
        deck: Any = "dream",
        timeout: float = 60.0,
        max_retries: int = 2,
        concurrency: int = 4,
        temperature: float = 0.0,
        max_tokens: int = 200,
        json_mode: bool = True,
        image_size: int | None = 384,
        image_format: str = "PNG",
        seed: int | None = None,
        extra_body: dict[str, Any] | None = None,
        allow_insecure_key: bool = False,
    ) -> None:
        if not str(base_url).lower().startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, not {base_url!r}")
        endpoint_key(str(base_url))  # a malformed port is refused here, before anything else
        if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
                or not 0 < timeout <= threading.TIMEOUT_MAX):  # NaN is refused here too
            raise ValueError(f"timeout must be a positive number of seconds, at most "
                             f"{threading.TIMEOUT_MAX:g}, not {timeout!r}")
        if max_retries < 0:
            raise ValueError(f"max_retries must be at least 0, not {max_retries}")
        if concurrency < 1:
            raise ValueError(f"concurrency must be at least 1, not {concurrency}")
        if image_format.upper() not in ("PNG", "JPEG"):
            raise ValueError(f"image_format must be PNG or JPEG, not {image_format!r}")
        if not isinstance(allow_insecure_key, bool):  # "false" from a config is not False
            raise ValueError(f"allow_insecure_key must be true or false, not "
                             f"{allow_insecure_key!r}")
        check_key_transport(str(base_url).rstrip("/"), sends_key=bool(api_key_env),
                            allow_insecure_key=allow_insecure_key)
        self.name = name
        self.base_url = str(base_url).rstrip("/")
        self.model = model
        self.api_key_env = api_key_env
        self.deck = deck
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.concurrency = int(concurrency)
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.json_mode = bool(json_mode)
        self.image_size = image_size
        self.image_format = image_format.upper()
        self.seed = seed
        self.extra_body = dict(extra_body or {})
        self.allow_insecure_key = allow_insecure_key
        self.seat = -1
        self.rng: np.random.Generator | None = None
        self._deck: Any = None
        self._images: dict[int, str] = {}
        self._images_lock = threading.Lock()
        self.requests = 0
        """Requests sent so far (for benchmarks)."""
        self.request_seconds = 0.0
        """Seconds spent waiting for responses so far."""
        # Last: a refused limit leaves no agent holding the endpoint.
        self._slots = endpoint_semaphore(self, self.base_url, self.concurrency)

    # ------------------------------------------------------------------ the protocol

    def reset(self, *, seat: int, rng: np.random.Generator) -> None:
        self.seat = seat
        self.rng = rng

    def tell(self, view: View) -> Story:
        (card, clue, kind), info = self._decide(tell_question(view))
        return Story(card=card, clue=clue, clue_kind=kind, info=info)

    def play(self, view: View) -> Choice:
        cards, info = self._decide(play_question(view))
        return Choice(cards, info)

    def vote(self, view: View) -> Choice:
        positions, info = self._decide(vote_question(view))
        return Choice(positions, info)

    def announce(self, view: View) -> Announcement:
        """Dixit Party: the storyteller's clue, asked before any card is shown (no image)."""
        (clue, kind), info = self._decide(announce_question(view))
        return Announcement(clue=clue, clue_kind=kind, info=info)

    def red_token(self, view: View) -> Choice:
        """Dixit Party: the storyteller's red token on one board image (its voters score 0)."""
        positions, info = self._decide(red_token_question(view))
        return Choice(positions, info)

    def describe(self) -> dict[str, Any]:
        """What the record keeps of the agent: everything sent that may change an answer
        (model, temperature, ``max_tokens``, ``extra_body``, seed, images, JSON mode, retries
        and timeout), never the API key; under ``"throughput"``, what only changes how fast the
        answers come (``concurrency``: requests in flight at once to the endpoint)."""
        return {
            "name": self.name, "class": "HttpAgent", "base_url": self.base_url,
            "model": self.model, "api_key_env": self.api_key_env,
            "deck": self.deck if isinstance(self.deck, str) else getattr(self.deck, "source",
                                                                          None),
            "temperature": self.temperature, "max_tokens": self.max_tokens,
            "extra_body": dict(self.extra_body), "max_retries": self.max_retries,
            "timeout": self.timeout, "json_mode": self.json_mode,
            "image_size": self.image_size, "image_format": self.image_format, "seed": self.seed,
            # no embedder simulated, no file fitted here (the panel's held-out check)
            "simulation_embedders": [], "simulation_fits": [],
            "throughput": {"concurrency": self.concurrency},
        }

    # ------------------------------------------------------------------ asking the model

    def _decide(self, question: Question[T]) -> tuple[T, dict[str, Any]]:
        """Ask, check, and ask again with the reason, until valid or out of retries."""
        content: list[dict[str, Any]] = [{"type": "text", "text": question.prompt}]
        for k, (caption, card) in enumerate(question.cards, start=1):
            content.append({"type": "text", "text": f"{caption} {k}:"})
            content.append({"type": "image_url", "image_url": {"url": self._image_url(card)}})
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": question.system_prompt},
            {"role": "user", "content": content},
        ]
        answers: list[str] = []
        reasons: list[str] = []
        for attempt in range(1, self.max_retries + 2):
            try:
                text = self._complete(messages)
            except EndpointError as error:
                reasons.append(f"{type(error).__name__}: {error}")
                if attempt > self.max_retries:
                    # The same class (a timeout stays an EndpointTimeout), saying how many
                    # requests were made and how the earlier ones ended.
                    earlier = (f"; the earlier ones: {'; '.join(reasons[:-1])}"
                               if attempt > 1 else "")
                    raise type(error)(
                        f"{error} ({attempt} attempt(s) made, 1 + max_retries="
                        f"{self.max_retries}{earlier})", unreachable=error.unreachable
                    ) from error
                continue
            answers.append(text)
            try:
                decision = question.check(parse_answer(text))
            except ValueError as error:
                reasons.append(str(error))
                messages = [*messages, {"role": "assistant", "content": text}, {
                    "role": "user",
                    "content": f"That answer is invalid: {error}. Answer again with one JSON "
                               "object only.",
                }]
                continue
            info = {"model": self.model, "attempts": attempt, "answer": text[:500]}
            if reasons:
                info["refused"] = reasons
            return decision, info
        raise InvalidAnswerError(
            f"{self.name}: no valid answer from {self.model!r} in {self.max_retries + 1} "
            f"attempt(s) ({len(answers)} answered); "
            f"last reason: {reasons[-1] if reasons else 'none'}",
            attempts=self.max_retries + 1, answers=answers, reasons=reasons)

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json"}
        if self.api_key_env:
            key = os.environ.get(self.api_key_env)
            if not key:
                raise EndpointError(
                    f"{self.name}: the API key variable {self.api_key_env} is not set")
            headers["Authorization"] = f"Bearer {key}"
        return headers

    def _complete(self, messages: list[dict[str, Any]]) -> str:
        """One chat-completions request; the text of the first choice."""
        body: dict[str, Any] = {
            "model": self.model, "messages": messages, "temperature": self.temperature,
            "max_tokens": self.max_tokens, **self.extra_body,
        }
        if self.json_mode:
            body["response_format"] = {"type": "json_object"}
        if self.seed is not None:
            body["seed"] = int(self.seed)
        url = f"{self.base_url}/chat/completions"
        request = DeadlineRequest(url, data=json.dumps(body).encode("utf-8"),
                                   headers=self._headers(), method="POST")
        with self._slots:
            start = time.perf_counter()
            self.requests += 1
            request.deadline = deadline = Deadline(self.timeout)
            try:
                try:  # the body is read inside: a connection cut off mid-body is caught too
                    with opener(self.base_url).open(request, timeout=self.timeout) as response:
                        raw = self._read_capped(response)
                except urllib.error.HTTPError as error:  # its body is read within the deadline
                    try:
                        failure = self._endpoint_error(error, url)
                    finally:
                        error.close()
                    raise failure from None
                finally:
                    deadline.finish()
                if deadline.expired:  # a shut-down socket may read as a (short) end of body
                    raise TimeoutError
            except EndpointError:
                raise
            except Exception as error:
                if deadline.expired or isinstance(error, TimeoutError) or (
                        isinstance(error, urllib.error.URLError)
                        and isinstance(error.reason, TimeoutError)):
                    raise EndpointTimeout(
                        f"{self.base_url} did not answer within {self.timeout:g} s (the "
                        "timeout bounds the whole request: connecting, waiting and reading "
                        "the answer)") from error
                failure = self._endpoint_error(error, url)
                if failure is error:
                    raise
                raise failure from None
            finally:
                self.request_seconds += time.perf_counter() - start
        try:
            data = json.loads(raw)
            text = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise EndpointError(
                f"{self.base_url} sent no chat completion: {raw[:200]!r}") from None
        if not isinstance(text, str):
            raise EndpointError(f"{self.base_url} sent a completion without text")
        return text

    def _read_capped(self, response: http.client.HTTPResponse) -> bytes:
        """The response's body, refused once larger than :data:`MAX_RESPONSE_BYTES`."""
        limit = MAX_RESPONSE_BYTES
        too_large = (f"{self.base_url} sent a response larger than the {limit:,}-byte limit "
                     "(http_agent.MAX_RESPONSE_BYTES); a chat completion is far smaller")
        declared = (response.headers.get("Content-Length") or "").strip()
        if declared.isdigit() and int(declared) > limit:
            raise EndpointError(f"{too_large} (Content-Length: {int(declared):,})")
        chunks: list[bytes] = []
        size = 0
        while chunk := response.read(65536):
            size += len(chunk)
            if size > limit:
                raise EndpointError(too_large)
            chunks.append(chunk)
        if declared.isdigit() and size < int(declared):  # read(amt) takes it for the end
            raise http.client.IncompleteRead(b"".join(chunks), int(declared) - size)
        return b"".join(chunks)

    def _endpoint_error(self, error: Exception, url: str) -> Exception:
        """The :class:`EndpointError` that a failed request's exception stands for (the
        exception itself when it is no endpoint failure)."""
        if isinstance(error, urllib.error.HTTPError):
            if 300 <= error.code < 400:
                location = error.headers.get("Location") or error.headers.get("URI")
                if not location:
                    return EndpointError(f"{self.base_url} answered HTTP {error.code} (a "
                                         "redirect) with no Location")
                error.close()  # nothing more is read from the address that redirects
                target = urllib.parse.urljoin(url, location.strip())
                root = target.removesuffix("/chat/completions")
                return EndpointError(
                    f"{self.base_url} redirected the request (HTTP {error.code}) to {target}; "
                    "redirects are not followed (the API key is sent to base_url only): set "
                    f"base_url to the final address"
                    + (f" ({root})" if root != target else ", the API root"))
            try:
                detail = error.read(300).decode("utf-8", "replace")
            except (OSError, http.client.HTTPException):
                detail = ""
            return EndpointError(f"{self.base_url} answered HTTP {error.code}: {detail}",
                                 unreachable=error.code >= 500)
        if isinstance(error, urllib.error.URLError):
            return EndpointError(f"{self.base_url} could not be reached: {error.reason}",
                                 unreachable=True)
        if isinstance(error, http.client.IncompleteRead):
            more = "" if error.expected is None else f", {error.expected} more expected"
            return EndpointError(f"{self.base_url} cut off its response "
                                 f"({len(error.partial)} bytes read{more})", unreachable=True)
        if isinstance(error, http.client.HTTPException | OSError):
            # RemoteDisconnected, a reset, a malformed status line: no usable response.
            return EndpointError(
                f"{self.base_url} closed the connection or sent no valid HTTP response "
                f"({type(error).__name__}: {error})", unreachable=True)
        return error

    def _image_url(self, card: int) -> str:
        """The card's image as a base64 ``data:`` URL (encoded once per card)."""
        with self._images_lock:
            if card in self._images:
                return self._images[card]
            if self._deck is None:
                if isinstance(self.deck, str):
                    from dixit_ai.decks import load_deck

                    self._deck = load_deck(self.deck)
                else:
                    self._deck = self.deck
            image = self._deck.image(card).convert("RGB")
            if self.image_size is not None and max(image.size) > self.image_size:
                image.thumbnail((self.image_size, self.image_size))
            buffer = io.BytesIO()
            if self.image_format == "JPEG":
                image.save(buffer, format="JPEG", quality=90)
            else:
                image.save(buffer, format="PNG")
            mime = "jpeg" if self.image_format == "JPEG" else "png"
            url = f"data:image/{mime};base64,{base64.b64encode(buffer.getvalue()).decode()}"
            self._images[card] = url
            return url
