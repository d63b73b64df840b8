"""A judge that asks a language model over the OpenAI-compatible chat-completions HTTP API.

vLLM, Ollama, llama.cpp's server, TGI and hosted services speak it: ``POST
{base_url}/chat/completions`` with the model's name and the messages. The HTTP
client is httpx (``pip install rankviz[judge]``), imported when a judge is made.
"""

from __future__ import annotations

import email.utils
import json
import numbers
import random
import re
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from urllib.parse import urlsplit, urlunsplit

from .._errors import InputError
from .grade_text import parse_grade, parse_reply
from .judges import Judge, Judgement, check_scale, config_fingerprint

__all__ = ["DEFAULT_PROMPT", "GRADE_DEFINITIONS", "LLMJudge", "llm_judge", "parse_grade"]

#: our definitions of the 0-3 relevance grades, as the default prompt gives them
GRADE_DEFINITIONS = {
    0: "not relevant: the passage does not help with the query at all, even if it shares some words with it.",
    1: "related: the passage is about the query's topic, but a reader would not find what the query asks for in it.",
    2: "relevant: the passage answers the query in part, or answers it among other material or not quite plainly.",
    3: "highly relevant: the passage is about the query and answers it fully and plainly.",
}

#: the grading prompt (a template: ``{query}`` and ``{passage}`` are filled in; ``{grades}`` lists the scale)
DEFAULT_PROMPT = """You are judging a search engine. Decide how relevant the passage is to the query.

Grades:
{definitions}

Query: {query}

Passage: {passage}

Reply with the grade only: one of {grades}, with nothing else."""

_FIELD = re.compile(r"\{(query|passage|grades)\}")
_REFUSED = {401: "the server refused the API key", 403: "the server refused access", 404: "no such endpoint or model"}


def _fill(template: str, values: Mapping[str, str]) -> str:
    """The template with each ``{query}``, ``{passage}``, ``{grades}`` replaced in one pass (texts never re-read)."""
    return _FIELD.sub(lambda m: values[m.group(1)], template)


def _retry_after(value: str | None, cap: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (seconds or an HTTP date), within [0, cap]."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        seconds = when.timestamp() - time.time()
    if seconds != seconds:  # NaN
        return None
    return min(max(seconds, 0.0), cap)


def _public_url(url: str) -> str:
    """The URL without user name and password (for reprs)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class Secret:
    """An API key that shows as ``'***'`` in reprs, ``vars()`` and tracebacks' locals, and refuses to be pickled."""

    __slots__ = ("_value",)

    def __init__(self, value: str):
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "'***'"

    __str__ = __repr__

    def __reduce__(self):
        raise TypeError(
            "An LLMJudge with an api_key is not pickled: the key would be written out. Make the judge where it is used."
        )

    def __copy__(self) -> Secret:
        return self

    def __deepcopy__(self, memo) -> Secret:
        return self


class LLMJudge(Judge):
    """A model behind an OpenAI-compatible chat-completions endpoint as a judge (see :func:`llm_judge`).

    Parameters
    ----------
    base_url, model, scale, prompt, api_key, concurrency, timeout, max_retries, name, temperature, max_tokens, extra_body, backoff, max_wait : object
        As for :func:`llm_judge`, checked and with its defaults filled in.
    definitions : dict or None
        Each grade's definition, filled into the prompt's ``{definitions}``.

    Examples
    --------
    >>> from rankviz import labels
    >>> judge = labels.llm_judge("http://localhost:8000/v1", "qwen2.5-7b-instruct")
    >>> type(judge).__name__, judge.name, judge.scale
    ('LLMJudge', 'qwen2.5-7b-instruct', (0, 1, 2, 3))
    """

    def __init__(self, *, base_url, model, scale, prompt, definitions, api_key, concurrency, timeout, max_retries,
                 name, temperature, max_tokens, extra_body, backoff, max_wait):  # fmt: skip
        self.base_url = base_url
        self.model = model
        self.scale = scale  # set before the fingerprint, which fills the prompt's {grades}
        self.prompt = prompt
        self.definitions = definitions
        self.concurrency = concurrency
        self.timeout = timeout
        self.max_retries = max_retries
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.extra_body = dict(extra_body or {})
        self.backoff = backoff
        self.max_wait = max_wait
        self.batch_size = concurrency
        self.__key = None if api_key is None else Secret(api_key)  # only the Authorization header carries it
        fingerprint = config_fingerprint(
            {
                "kind": "openai-chat-completions", "model": model, "prompt": self.prompt_template(), "scale": scale,
                "temperature": temperature, "max_tokens": max_tokens, "extra_body": self.extra_body,
            }
        )  # fmt: skip
        super().__init__(name, fingerprint, scale)

    def prompt_template(self) -> str:
        """The prompt with the scale filled in (``{query}`` and ``{passage}`` left as they are)."""
        definitions = "\n".join(f"{g} = {self.definitions[g]}" for g in self.scale) if self.definitions else ""
        grades = ", ".join(map(str, self.scale[:-1])) + f" or {self.scale[-1]}"
        template = self.prompt.replace("{definitions}", definitions)
        return _FIELD.sub(lambda m: grades if m.group(1) == "grades" else m.group(0), template)

    def messages(self, query: str, passage: str) -> list[dict]:
        """The chat messages sent for one pair."""
        return [{"role": "user", "content": _fill(self.prompt_template(), {"query": query, "passage": passage})}]

    def _redact(self, text):
        if text is None or self.__key is None:
            return text
        return str(text).replace(self.__key.reveal(), "***")

    def __repr__(self) -> str:
        key = "'***'" if self.__key is not None else "None"
        return (
            f"LLMJudge(model={self.model!r}, base_url={_public_url(self.base_url)!r}, scale={self.scale}, "
            f"fingerprint={self.fingerprint!r}, api_key={key}, concurrency={self.concurrency})"
        )

    # -- HTTP ------------------------------------------------------------------------------------
    def _client(self):
        import httpx

        headers = {"Authorization": f"Bearer {self.__key.reveal()}"} if self.__key is not None else {}
        limits = httpx.Limits(max_connections=self.concurrency, max_keepalive_connections=self.concurrency)
        return httpx.Client(headers=headers, timeout=httpx.Timeout(self.timeout), limits=limits)

    def _ask(self, client, query: str, passage: str, stop: threading.Event) -> Judgement | None:
        """One pair, with retries; None when the run was stopped before it was asked."""
        import httpx

        url = self.base_url + "/chat/completions"
        payload = {"model": self.model, "messages": self.messages(query, passage), **self.extra_body}
        payload.setdefault("temperature", self.temperature)
        if self.max_tokens is not None:
            payload.setdefault("max_tokens", self.max_tokens)
        requests, last = 0, ""
        while True:
            if stop.is_set():
                return None if requests == 0 else Judgement(None, f"{last} (the run stopped)", requests=requests)
            requests += 1
            wait_for = None
            try:
                response = client.post(url, json=payload)
            except httpx.TimeoutException:
                last = f"timeout: no answer within {self.timeout} s"
            except httpx.TransportError as error:  # refused, reset, closed mid-answer
                last = f"connection error: {type(error).__name__}: {self._redact(error)}"
            except httpx.RequestError as error:  # an answer that cannot be decoded, ...
                last = f"request error: {type(error).__name__}: {self._redact(error)}"
            else:
                status = response.status_code
                if status == 200:
                    return self._read(response, requests)
                if status in _REFUSED:
                    stop.set()
                    raise InputError(
                        f"llm_judge: {_public_url(url)} answered HTTP {status} ({_REFUSED[status]}) for model "
                        f"{self.model!r}. Check base_url (it ends before /chat/completions, e.g. http://host:8000/v1), "
                        "the model's name and the api_key. Grades committed so far are kept."
                    )
                body = self._redact(response.text[:200])
                if status == 429:
                    last = "rate limited: HTTP 429"
                    wait_for = _retry_after(response.headers.get("Retry-After"), self.max_wait)
                elif status == 408 or status >= 500:
                    last = f"HTTP {status}: {body}"
                else:  # a request the server will never accept (too long a passage, ...): not retried
                    return Judgement(None, f"HTTP {status}: {body}", requests=requests)
            if requests > self.max_retries:
                return Judgement(None, f"{last} (after {requests} attempts)", requests=requests)
            if wait_for is None:
                wait_for = min(self.backoff * 2 ** (requests - 1), self.max_wait) * (1 + 0.1 * random.random())
            stop.wait(wait_for)

    def _read(self, response, requests: int) -> Judgement:
        try:
            body = response.json()
            content = body["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raw = self._redact(response.text[:2000])
            return Judgement(None, "bad response: no choices[0].message.content", raw=raw, requests=requests)
        usage = body.get("usage") if isinstance(body, dict) else None
        tokens = {}
        if isinstance(usage, Mapping):
            tokens = {
                k: int(v) for k, v in usage.items() if isinstance(v, numbers.Integral) and not isinstance(v, bool)
            }
        raw = (
            self._redact(content) if content is None or isinstance(content, str) else self._redact(json.dumps(content))
        )
        grade, reason = parse_reply(content, self.scale)
        return Judgement(grade, reason, raw=raw, usage=tokens, requests=requests)

    # -- judging ---------------------------------------------------------------------------------
    def stream(self, pairs: Sequence[tuple[str, str]]) -> Iterator[tuple[int, Judgement]]:
        """``(index, Judgement)`` as each answer arrives, ``concurrency`` requests at a time.

        After a pair fails on connection errors through all its retries, the server
        is taken as gone: the pairs not yet sent are not asked (and not yielded).
        """
        pairs = list(pairs)
        if not pairs:
            return
        stop = threading.Event()
        client = self._client()
        pool = ThreadPoolExecutor(max_workers=self.concurrency, thread_name_prefix="rankviz-judge")
        try:
            todo = iter(enumerate(pairs))
            running: dict = {}

            def submit_next() -> None:
                for index, (query, passage) in todo:
                    running[pool.submit(self._ask, client, str(query), str(passage), stop)] = index
                    return

            for _ in range(self.concurrency):
                submit_next()
            while running:
                done, _ = wait(list(running), return_when=FIRST_COMPLETED)
                for future in done:
                    index = running.pop(future)
                    result = future.result()
                    if result is None:
                        continue
                    if result.failure_kind == "connection error":
                        stop.set()
                    yield index, result
                    if not stop.is_set():
                        submit_next()
        finally:
            stop.set()
            pool.shutdown(wait=True, cancel_futures=True)
            client.close()

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        out: list[Judgement] = [Judgement(None, "not asked: the server could not be reached")] * len(pairs)
        for index, result in self.stream(pairs):
            out[index] = result
        return out


def llm_judge(
    base_url: str,
    model: str,
    *,
    scale=(0, 1, 2, 3),
    prompt: str | None = None,
    api_key: str | None = None,
    concurrency: int = 4,
    timeout: float = 30,
    max_retries: int = 3,
    name: str | None = None,
    temperature: float = 0.0,
    max_tokens: int | None = 8,
    extra_body: Mapping | None = None,
    backoff: float = 0.5,
    max_wait: float = 60.0,
) -> LLMJudge:
    """A judge that asks a model behind an OpenAI-compatible chat-completions API to grade each pair.

    Each pair is one request, ``POST {base_url}/chat/completions`` with one user
    message: the prompt with the query and the passage filled in. Our default
    prompt (:data:`rankviz.labels.DEFAULT_PROMPT`) asks for one grade on a 0-3
    scale and defines each grade (:data:`rankviz.labels.GRADE_DEFINITIONS`):

    - 0, not relevant: the passage does not help with the query at all, even if it
      shares some words with it;
    - 1, related: about the query's topic, but what the query asks for is not in it;
    - 2, relevant: answers the query in part, or among other material, or not plainly;
    - 3, highly relevant: about the query and answers it fully and plainly.

    The answer is read strictly (:func:`parse_grade`): one integer on the scale,
    or ``{"grade": n}``. Anything else, a grade off the scale, a timeout, or an
    HTTP error that outlasts the retries is a failed judgement with its reason
    (:func:`rankviz.labels.judge_pairs` records it in the store), never a guess.

    Parameters
    ----------
    base_url : str
        The API's root, before ``/chat/completions``: ``http://localhost:8000/v1``
        (vLLM), ``http://localhost:11434/v1`` (Ollama), ``http://localhost:8080/v1``
        (llama.cpp), or a hosted service's.
    model : str
        The model's name as the server knows it.
    scale : sequence of int or dict, default (0, 1, 2, 3)
        The grades; a dict gives each grade's definition for the default prompt.
        Another scale without definitions needs a ``prompt``.
    prompt : str, optional
        Your own prompt template: ``{query}`` and ``{passage}`` are replaced by the
        texts, ``{grades}`` by the scale ("0, 1 or 2"); any other braces are kept.
    api_key : str, optional
        Sent as ``Authorization: Bearer ...``. It never reaches the store, a repr,
        a report or an error message, and is not part of the fingerprint.
    concurrency : int, default 4
        Requests in flight at once (threads).
    timeout : float, default 30
        Seconds to wait for a connection and for an answer.
    max_retries : int, default 3
        Further attempts after a timeout, a connection error, HTTP 408, 429 or 5xx
        (waits of ``backoff`` seconds, doubling; on 429 the ``Retry-After`` header's
        time; each wait at most ``max_wait``). Other HTTP errors are not retried;
        401, 403 and 404 (a wrong key, URL or model) stop the run with an error.
    name : str, optional
        The judge's name in the store (default: ``model``).
    temperature : float, default 0.0
    max_tokens : int or None, default 8
        Sampling settings sent with each request (None: not sent).
    extra_body : dict, optional
        More fields for the request body (``{"seed": 1}``, a server's options).
    backoff, max_wait : float
        The first retry's wait and the longest wait, in seconds.

    Returns
    -------
    LLMJudge
        With ``name``, ``fingerprint`` (a hash of the model, the prompt, the scale,
        the sampling settings and ``extra_body``; not of the URL, the key, the
        timeout or the concurrency) and ``scale``.

    Raises
    ------
    ImportError
        When httpx is missing: ``pip install rankviz[judge]``.

    Notes
    -----
    A model that reasons aloud before answering (``<think>...``) fails the strict
    parsing, and ``max_tokens=8`` cuts it off: switch its reasoning off (a server
    option in ``extra_body``, or a model without it) or use a prompt and
    ``max_tokens`` under which it answers with the grade alone. The failures'
    reasons and raw answers (``store.failures()``) show what it said.

    Examples
    --------
    >>> from rankviz import labels
    >>> judge = labels.llm_judge("http://localhost:8000/v1", "qwen2.5-7b-instruct", api_key="sk-secret")
    >>> judge
    LLMJudge(model='qwen2.5-7b-instruct', base_url='http://localhost:8000/v1', scale=(0, 1, 2, 3), fingerprint='...', api_key='***', concurrency=4)
    >>> print(judge.messages("red fox", "The red fox ran.")[0]["content"].splitlines()[-1])
    Reply with the grade only: one of 0, 1, 2 or 3, with nothing else.
    """
    try:
        import httpx  # noqa: F401
    except ImportError:
        raise ImportError("llm_judge needs the httpx package: pip install rankviz[judge]") from None
    if not isinstance(base_url, str) or not re.match(r"https?://[^/\s]+", base_url):
        raise InputError(
            f"llm_judge: base_url must be an http(s) URL, e.g. 'http://localhost:8000/v1'. Got {base_url!r} instead."
        )
    if not isinstance(model, str) or not model.strip():
        raise InputError(f"llm_judge: model must be the model's name as the server knows it. Got {model!r} instead.")
    grades = check_scale(scale, "llm_judge")
    if isinstance(scale, Mapping):
        definitions = {int(g): str(d) for g, d in scale.items()}
    elif grades == (0, 1, 2, 3):
        definitions = dict(GRADE_DEFINITIONS)
    else:
        definitions = {}
    if prompt is None:
        if not definitions:
            raise InputError(
                f"llm_judge: the default prompt defines the grades 0 to 3; for the scale {grades} give each grade's "
                "definition, scale={0: 'not relevant: ...', 1: '...'}, or your own prompt=..."
            )
        prompt = DEFAULT_PROMPT
    if not isinstance(prompt, str) or "{query}" not in prompt or "{passage}" not in prompt:
        raise InputError(
            "llm_judge: prompt must be a string with the fields {query} and {passage} (and optionally {grades}). "
            f"Got {prompt!r} instead."
        )
    for label, count, low in (("concurrency", concurrency, 1), ("max_retries", max_retries, 0)):
        if isinstance(count, bool) or not isinstance(count, numbers.Integral) or count < low:
            raise InputError(f"llm_judge: {label} must be an integer of at least {low}. Got {count!r} instead.")
    for label, seconds in (("timeout", timeout), ("backoff", backoff), ("max_wait", max_wait)):
        if isinstance(seconds, bool) or not isinstance(seconds, numbers.Real) or not seconds >= 0:
            raise InputError(f"llm_judge: {label} must be a number of seconds (>= 0). Got {seconds!r} instead.")
    if api_key is not None and (
        not isinstance(api_key, str) or not api_key.strip() or not api_key.isascii() or not api_key.isprintable()
    ):
        raise InputError("llm_judge: api_key must be a non-empty string of printable ASCII characters, or None.")
    if extra_body is not None and not isinstance(extra_body, Mapping):
        raise InputError(f"llm_judge: extra_body must be a dict. Got {type(extra_body).__name__} instead.")
    return LLMJudge(
        base_url=base_url.rstrip("/"), model=model, scale=grades, prompt=prompt, definitions=definitions,
        api_key=api_key, concurrency=int(concurrency), timeout=float(timeout), max_retries=int(max_retries),
        name=model if name is None else str(name), temperature=temperature, max_tokens=max_tokens,
        extra_body=extra_body, backoff=float(backoff), max_wait=float(max_wait),
    )  # fmt: skip
