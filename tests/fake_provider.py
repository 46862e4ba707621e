"""A local provider server for tests: a real http.server on 127.0.0.1, in a thread.

It answers like OpenAI (Responses), any Chat Completions server, Gemini and
Anthropic, records every request (path, headers, JSON body, arrival and reply
times, the connection it came on), and plays scripted replies (errors, hints,
truncations, slow, torn or dropped replies) before falling back to a success in
the provider's own format. With ``tls=True`` it speaks HTTPS with the test
certificate in tests/tls (signed by tests/tls/ca.pem); ``idle_timeout`` closes
keep-alive connections that stay idle that long, as real servers do. It keeps a
log of the TCP connections it accepted and how many requests each carried.
"""

import collections
import email.utils
import http.server
import json
import os
import socket
import ssl
import threading
import time

TLS_FOLDER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tls")
CA_FILE = os.path.join(TLS_FOLDER, "ca.pem")
OTHER_CA_FILE = os.path.join(TLS_FOLDER, "other_ca.pem")
TEST_HOST = "provider.ehq-test.invalid"  # in the certificate; never resolvable (for proxy tests)


class Reply:
    """One scripted reply. ``body`` is a dict (sent as JSON), str or bytes.

    ``tear`` sends half the body and closes; ``drop`` closes the connection without
    any reply (a server that closed a kept-alive connection as the request arrived);
    ``chunked`` sends the body in chunks, without a Content-Length.
    """

    def __init__(self, status=200, body=None, headers=None, delay=0.0, tear=False, drop=False,
                 chunked=False):
        self.status, self.body, self.headers = status, body, headers or {}
        self.delay, self.tear = delay, tear
        self.drop, self.chunked = drop, chunked


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
    # a real provider does not reset connections at a few dozen concurrent clients
    request_queue_size = 128

    def handle_error(self, request, client_address):
        pass  # a client that gave up (timeout, failed TLS handshake) is not a server error


def server_tls_context():
    """The TLS context of the test server (tests/tls/server.pem and server.key)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(os.path.join(TLS_FOLDER, "server.pem"),
                            os.path.join(TLS_FOLDER, "server.key"))
    return context


class FakeProvider:
    """Start with FakeProvider("openai"); stop with close(). ``base_url`` suits the route's
    provider."""

    def __init__(self, kind="openai", latency=0.0, responder=None, tls=False, idle_timeout=None):
        self.kind, self.latency, self.tls = kind, latency, tls
        self.responder = responder or default_text
        self.plan = collections.deque()
        self.requests = []
        self.connections = []  # one entry per accepted TCP connection: {"opened", "requests"}
        self.handshake_failures = 0
        self.active = 0  # requests being answered now (read by rules that refuse above a limit)
        self.lock = threading.Lock()
        # optional function(body, index) -> Reply or None, consulted before the plan
        self.rule = None
        context = server_tls_context() if tls else None
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # as real servers do; no delayed-ACK stalls on reuse
            timeout = idle_timeout

            def setup(self):
                if context is not None:
                    self.request.settimeout(10)
                    try:
                        self.request = context.wrap_socket(self.request, server_side=True)
                    except (ssl.SSLError, OSError):
                        with owner.lock:
                            owner.handshake_failures += 1
                        raise
                    self.request.settimeout(None)  # the handshake's limit; then idle_timeout
                super().setup()
                with owner.lock:
                    self.connection_index = len(owner.connections)
                    owner.connections.append({"opened": time.monotonic(), "requests": 0})
                    owner._sockets.add(self.connection)

            def finish(self):
                try:
                    super().finish()
                finally:
                    with owner.lock:
                        owner._sockets.discard(self.connection)
                    if context is not None:  # the server closes only the socket it accepted
                        self.connection.close()

            def log_message(self, *args):
                pass

            def do_POST(self):
                owner._handle(self)

        self._sockets = set()
        self.server = _Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def port(self):
        return self.server.server_address[1]

    @property
    def origin(self):
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    @property
    def base_url(self):
        return self.origin + "/v1" if self.kind in ("openai", "chat") else self.origin

    def url_for(self, host):
        """base_url with another host name (the certificate also names localhost and TEST_HOST)."""
        return self.base_url.replace("127.0.0.1", host, 1)

    def close(self):
        self.server.shutdown()
        self.server.server_close()
        with self.lock:
            open_sockets = list(self._sockets)
        for connection in open_sockets:  # end kept-alive connections, so their threads end
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def stats(self):
        """Server-side figures: connections, requests, first arrival, last reply (monotonic)."""
        with self.lock:
            replied = [r["replied"] for r in self.requests if r.get("replied") is not None]
            return {"connections": len(self.connections), "requests": len(self.requests),
                    "first_request": self.requests[0]["time"] if self.requests else None,
                    "last_reply": max(replied) if replied else None,
                    "handshake_failures": self.handshake_failures}

    def script(self, *replies):
        with self.lock:
            self.plan.extend(replies)

    def _handle(self, handler):
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        if len(raw) < length:  # the client went away mid-request: a real server drops it too
            handler.close_connection = True
            return
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self.lock:
            index = len(self.requests)
            entry = {
                "path": handler.path, "headers": {k.lower(): v
                                                  for k, v in handler.headers.items()},
                "body": body, "time": time.monotonic(), "connection": handler.connection_index,
                "replied": None
            }
            self.requests.append(entry)
            self.connections[handler.connection_index]["requests"] += 1
            self.active += 1
            try:
                reply = self.rule(body, index) if self.rule else None
                if reply is None and self.plan:
                    reply = self.plan.popleft()
            except BaseException:
                self.active -= 1
                raise
        try:
            self._reply(handler, body, reply, entry)
        finally:
            with self.lock:
                self.active -= 1

    def _reply(self, handler, body, reply, entry):
        if reply is None:
            reply = Reply(200, SUCCESS[self.kind](self.responder(body)))
        if self.latency or reply.delay:
            time.sleep(self.latency + reply.delay)
        if reply.drop:
            handler.close_connection = True
            return
        data = reply.body if isinstance(reply.body, bytes) else (
            reply.body.encode() if isinstance(reply.body, str) else json.dumps(reply.body).encode())
        try:
            handler.send_response(reply.status)
            headers = {"Content-Type": "application/json"}
            headers.update(reply.headers)
            for name, value in headers.items():
                handler.send_header(name, value)
            if reply.chunked:
                handler.send_header("Transfer-Encoding", "chunked")
                handler.end_headers()
                for start in range(0, len(data), 512):
                    part = data[start:start + 512]
                    handler.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
                handler.wfile.write(b"0\r\n\r\n")
                handler.wfile.flush()
                entry["replied"] = time.monotonic()
                return
            handler.send_header("Content-Length", str(len(data) + (100 if reply.tear else 0)))
            handler.end_headers()
            handler.wfile.write(data if not reply.tear else data[: len(data) // 2])
            handler.wfile.flush()
            entry["replied"] = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, OSError):
            handler.close_connection = True
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
