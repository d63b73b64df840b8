"""A small OpenAI-compatible chat-completions server for the judge tests, playing scripted answers.

Run in a thread (:func:`serve`) or as a process (``python chat_server.py SCRIPT LOG --port N [--hang-from K]``).

The script is JSON: ``{key: [step, ...]}``. A request whose prompt contains ``key``
gets the key's steps in order (the last one repeats): ``{"answer": "2"}`` (HTTP 200
with that message content), ``{"status": 429, "retry_after": "1"}``,
``{"status": 500}``, ``{"sleep": 2.0, "answer": "1"}`` (answers late),
``{"body": "..."}`` (a raw 200 body), ``"usage": {...}`` (reported with the
answer). A prompt matching no key gets ``"1"``. Every request is logged as a JSON
line (``asked``, with the key and the Authorization header) and every answer sent
in full as ``answered``; ``--hang-from K`` makes the K-th request and every later
one hang (after its ``asked`` line) so that a test can kill the server mid-run.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, script: dict, log_path: str, hang_from: int | None = None):
        super().__init__(("127.0.0.1", port), Handler)
        self.script = script
        self.log_path = log_path
        self.hang_from = hang_from
        self.lock = threading.Lock()
        self.seen: dict[str, int] = defaultdict(int)
        self.requests = 0

    def log(self, record: dict) -> None:
        with self.lock, open(self.log_path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
            handle.flush()


class Handler(BaseHTTPRequestHandler):
    server: ChatServer

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        try:
            self._answer()
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout): nothing to answer
            pass

    def _answer(self) -> None:
        server = self.server
        length = int(self.headers.get("Content-Length", 0))
        request = json.loads(self.rfile.read(length))
        prompt = request["messages"][-1]["content"]
        key = next((k for k in server.script if k in prompt), None)
        with server.lock:
            server.requests += 1
            number = server.requests
            step_index = server.seen[key or ""]
            server.seen[key or ""] += 1
        server.log(
            {"event": "asked", "key": key, "n": number, "path": self.path, "model": request.get("model"),
             "auth": self.headers.get("Authorization"), "prompt": prompt}
        )  # fmt: skip
        if server.hang_from is not None and number >= server.hang_from:
            time.sleep(3600)
        steps = server.script.get(key, [{"answer": "1"}]) if key else [{"answer": "1"}]
        step = steps[min(step_index, len(steps) - 1)]
        time.sleep(step.get("sleep", 0.0))
        status = step.get("status", 200)
        if "body" in step:
            body = step["body"].encode()
        elif status == 200:
            message = {"role": "assistant", "content": step.get("answer", "1")}
            answer = {"id": f"c{number}", "object": "chat.completion", "model": request.get("model"),
                      "choices": [{"index": 0, "message": message, "finish_reason": "stop"}]}  # fmt: skip
            if "usage" in step:
                answer["usage"] = step["usage"]
            body = json.dumps(answer).encode()
        else:
            body = json.dumps({"error": {"message": f"scripted {status}"}}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if "retry_after" in step:
            self.send_header("Retry-After", step["retry_after"])
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()
        server.log({"event": "answered", "key": key, "n": number, "status": status})


def serve(script: dict, log_path: str, port: int = 0) -> ChatServer:
    """A server in a daemon thread; ``server.server_address[1]`` is its port, ``server.shutdown()`` stops it."""
    server = ChatServer(port, script, log_path)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("script")
    parser.add_argument("log")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--hang-from", type=int, default=None)
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as handle:
        script = json.load(handle)
    server = ChatServer(args.port, script, args.log, args.hang_from)
    print(server.server_address[1], flush=True)
    sys.stdout.close()
    server.serve_forever()


if __name__ == "__main__":
    main()
