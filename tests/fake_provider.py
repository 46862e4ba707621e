"""A local provider server for tests: a real http.server on 127.0.0.1, in a thread.

It answers like OpenAI (Responses), any Chat Completions server, Gemini and
Anthropic, records every request (path, headers, JSON body, arrival time), and
plays scripted replies (errors, hints, truncations, slow or torn bodies) before
falling back to a success in the provider's own format.
"""

import collections
import email.utils
import http.server
import json
import threading
import time


class Reply:
    """One scripted reply. ``body`` is a dict (sent as JSON), str or bytes."""

    def __init__(self, status=200, body=None, headers=None, delay=0.0, tear=False):
        self.status, self.body, self.headers, self.delay, self.tear = status, body, headers or {}, delay, tear


def openai_success(text, model="gpt-4o-mini", usage=None):
    return {
        "id": "resp_0001", "object": "response", "status": "completed",
        "model": f"{model}-2024-07-18", "output": [{
            "id": "msg_1", "type": "message", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "annotations": [], "text": text}]
        }], "usage": usage or {
            "input_tokens": 12, "input_tokens_details": {"cached_tokens": 2}, "output_tokens": 3,
            "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15
        }
    }


def chat_success(text, model="local-model", usage=None, finish="stop"):
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1760000000, "model": model,
        "choices": [{
            "index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish
        }], "usage": usage or {"prompt_tokens": 26, "completion_tokens": 4, "total_tokens": 30}
    }


def gemini_success(text, model="gemini-2.5-flash"):
    return {
        "candidates": [{
            "content": {"parts": [{"text": text}], "role": "model"}, "finishReason": "STOP",
            "index": 0
        }],
        "usageMetadata": {"promptTokenCount": 11, "candidatesTokenCount": 2, "totalTokenCount": 13},
        "modelVersion": model, "responseId": "resp-gemini-1"
    }


def anthropic_success(text, model="claude-sonnet-4-20250514"):
    return {
        "id": "msg_01", "type": "message", "role": "assistant", "model": model,
        "content": [{"type": "text",
                     "text": text}], "stop_reason": "end_turn", "stop_sequence": None, "usage": {
                         "input_tokens": 16, "cache_creation_input_tokens": 0,
                         "cache_read_input_tokens": 4, "output_tokens": 50
                     }
    }


SUCCESS = {
    "openai": openai_success, "chat": chat_success, "gemini": gemini_success,
    "anthropic": anthropic_success
}


def default_text(body):
    """Answer like a tiny model: a number for a confidence request, a name otherwise."""
    text = json.dumps(body)
    return "85" if "confidence" in text.lower() else "The answer is Charles Jacobus."


class _Server(http.server.ThreadingHTTPServer):
    request_queue_size = 128  # a real provider does not reset connections at a few dozen concurrent clients


class FakeProvider:
    """Start with FakeProvider("openai"); stop with close(). ``base_url`` suits the route's provider."""

    def __init__(self, kind="openai", latency=0.0, responder=None):
        self.kind, self.latency = kind, latency
        self.responder = responder or default_text
        self.plan = collections.deque()
        self.requests = []
        self.lock = threading.Lock()
        self.rule = None  # optional function(body, index) -> Reply or None, consulted before the plan
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                owner._handle(self)

        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def origin(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def base_url(self):
        return self.origin + "/v1" if self.kind in ("openai", "chat") else self.origin

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def script(self, *replies):
        with self.lock:
            self.plan.extend(replies)

    def _handle(self, handler):
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self.lock:
            index = len(self.requests)
            self.requests.append({
                "path": handler.path, "headers": {k.lower(): v
                                                  for k, v in handler.headers.items()},
                "body": body, "time": time.monotonic()
            })
            reply = self.rule(body, index) if self.rule else None
            if reply is None and self.plan:
                reply = self.plan.popleft()
        if reply is None:
            reply = Reply(200, SUCCESS[self.kind](self.responder(body)))
        if self.latency or reply.delay:
            time.sleep(self.latency + reply.delay)
        data = reply.body if isinstance(reply.body, bytes) else (
            reply.body.encode() if isinstance(reply.body, str) else json.dumps(reply.body).encode())
        try:
            handler.send_response(reply.status)
            headers = {"Content-Type": "application/json"}
            headers.update(reply.headers)
            for name, value in headers.items():
                handler.send_header(name, value)
            handler.send_header("Content-Length", str(len(data) + (100 if reply.tear else 0)))
            handler.end_headers()
            handler.wfile.write(data if not reply.tear else data[: len(data) // 2])
            handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass
        if reply.tear:
            handler.close_connection = True

    def bodies(self):
        return [r["body"] for r in self.requests]


class FakeClock:
    """Virtual time: sleep() and wait() advance it and are recorded; nothing really sleeps."""

    def __init__(self, start=1_800_000_000.0):
        self.now = start
        self.sleeps = []

    def monotonic(self):
        return self.now

    def time(self):
        return self.now

    def sleep(self, seconds):
        self.sleeps.append(seconds)
        self.now += seconds

    def wait(self, condition, seconds):
        self.now += seconds

    def http_date(self, offset):
        return email.utils.formatdate(self.now + offset, usegmt=True)
