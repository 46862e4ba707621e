"""Real endpoints at scale: kept-alive HTTPS connections, proxies, pacing from the server's
rate-limit headers, --concurrency auto, routes from flags, `routes --check`, cancellation.

Every server here is a real http.server on 127.0.0.1 (tests/fake_provider.py), speaking
HTTPS with the committed test certificate (tests/tls) where it says tls=True.
"""

import base64
import contextlib
import io
import json
import math
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import unittest
from unittest import mock

from fake_provider import (CA_FILE, OTHER_CA_FILE, TEST_HOST, FakeClock, FakeProvider, Reply,
                           chat_success, default_text)
from support import KIT, TempDirTestCase, ehq_ref, run_cli

REQUEST = ehq_ref.Request("answer", "You are a helpful assistant.", "Who won in 1904?", 64,
                          item_id="HNQ-SPO-001")


def chat_route(server, **changes):
    fields = dict(name="r", provider="openai_compatible", provider_model="local-model",
                  base_url=server.base_url, requires_api_key=False, read_timeout=10.0)
    if server.tls:
        fields["ca_file"] = CA_FILE
    fields.update(changes)
    return ehq_ref.Route(**fields)


def call(route, transport, events=None, clock=None, retries=2, request=REQUEST):
    return ehq_ref.call_model(route, request, secrets=ehq_ref.Secrets(environ={}),
                              transport=transport, clock=clock or FakeClock(),
                              policy=ehq_ref.RetryPolicy(max_retries=retries),
                              emit=(events.append if events is not None else None))


def request_for(index):
    return ehq_ref.Request("answer", "sys", f"question {index}", 16, item_id=str(index))


class LocalProxy:
    """A tiny forward proxy on 127.0.0.1, in a thread: CONNECT tunnels and absolute-URI requests.

    Whatever host a client names, it connects to 127.0.0.1:``upstream_port`` (so a test
    can name a host that does not resolve). ``log`` holds (first request line,
    Proxy-Authorization or None) for each connection it accepted.
    """

    def __init__(self, upstream_port):
        self.upstream_port = upstream_port
        self.log = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def close(self):
        self.listener.close()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client, ), daemon=True).start()

    def _serve(self, client):
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
        header, _, rest = head.partition(b"\r\n\r\n")
        lines = header.decode("latin-1").split("\r\n")
        auth = next((line.split(":", 1)[1].strip() for line in lines[1:]
                     if line.lower().startswith("proxy-authorization:")), None)
        self.log.append((lines[0], auth))
        upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
        if lines[0].startswith("CONNECT "):
            client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
        else:
            upstream.sendall(head)
        back = threading.Thread(target=_pipe, args=(upstream, client), daemon=True)
        back.start()
        _pipe(client, upstream)
        back.join(10)
        client.close()
        upstream.close()


def _pipe(source, target):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            target.sendall(data)
    except OSError:
        pass
    finally:
        for end in (source, target):
            try:
                end.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


@contextlib.contextmanager
def proxy_environment(**values):
    """Exactly the given *_proxy variables set (all others removed), restored afterwards."""
    saved = {k: v for k, v in os.environ.items() if k.lower().endswith("_proxy")}
    for name in saved:
        del os.environ[name]
    os.environ.update(values)
    try:
        yield
    finally:
        for name in [k for k in os.environ if k.lower().endswith("_proxy")]:
            del os.environ[name]
        os.environ.update(saved)


class ThinkingTransport:
    """An HTTPTransport that pauses before each request, as a client busy between calls."""

    def __init__(self, pause):
        self.inner, self.pause = ehq_ref.HTTPTransport(), pause

    def post(self, *args, **kwargs):
        time.sleep(self.pause)
        return self.inner.post(*args, **kwargs)


class ServerCase(TempDirTestCase):
    def serve(self, kind="chat", **options):
        server = FakeProvider(kind, **options)
        self.addCleanup(server.close)
        return server

    def transport(self):
        transport = ehq_ref.HTTPTransport()
        self.addCleanup(transport.close)
        return transport

    def registry(self, *entries):
        return self.write("models.json", json.dumps(list(entries)))

    def options(self, **changes):
        fields = dict(output=self.path("runs"), progress="quiet", env_file=None,
                      use_cache=False, bootstrap=50)
        fields.update(changes)
        return ehq_ref.RunOptions(**fields)

    def events(self, run_dir):
        with open(os.path.join(run_dir, "events.jsonl"), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def records(self, run_dir):
        with open(os.path.join(run_dir, "records.jsonl"), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]


# --- Persistent connections ----------------------------------------------------------


class ConnectionReuseTest(ServerCase):
    def test_workers_reuse_their_connections_in_the_servers_log(self):
        server = self.serve(tls=True, latency=0.01)
        transport, route = self.transport(), chat_route(server)
        results = list(ehq_ref.map_concurrently(lambda i: call(route, transport,
                                                                request=request_for(i)),
                                                range(48), 4))
        self.assertTrue(all(r.ok and r.attempts == 1 for r in results))
        stats = server.stats()
        self.assertEqual(stats["requests"], 48)
        self.assertLessEqual(stats["connections"], 4 + transport.reconnects + transport.resent)
        self.assertEqual((transport.opened, stats["connections"]), (stats["connections"], 4))
        self.assertEqual(sum(c["requests"] for c in server.connections), 48)
        self.assertTrue(all(c["requests"] >= 6 for c in server.connections), server.connections)

    def test_a_run_opens_one_connection_per_worker_and_records_it(self):
        server = self.serve(tls=True, responder=default_text)
        registry = self.registry({"name": "tls", "provider": "openai_compatible",
                                  "provider_model": "local-model", "base_url": server.base_url,
                                  "ca_file": CA_FILE})
        result = ehq_ref.run_evaluation(self.options(models=("tls", ), registry=registry,
                                                     concurrency=3))
        self.assertEqual(result["exit_code"], 0)
        self.assertEqual(len(server.requests), 60)  # 30 answerable items x 2 requests
        self.assertLessEqual(len(server.connections), 3)
        counts = [e for e in self.events(result["run_dir"]) if e["event"] == "connections"]
        self.assertEqual([(c["opened"], c["resent"]) for c in counts],
                         [(len(server.connections), 0)])
        manifest = result["manifest"]
        self.assertEqual(manifest["registry"]["routes"]["tls"]["ca_file"], CA_FILE)

    def test_idle_close_by_the_server_loses_and_doubles_nothing(self):
        server = self.serve(tls=True, idle_timeout=0.03, responder=default_text)
        registry = self.registry({"name": "tls", "provider": "openai_compatible",
                                  "provider_model": "local-model", "base_url": server.base_url,
                                  "ca_file": CA_FILE})
        thinking = ThinkingTransport(0.08)
        self.addCleanup(thinking.inner.close)
        result = ehq_ref.run_evaluation(
            self.options(models=("tls", ), registry=registry, concurrency=2, categories="HNQ",
                         limit=8), transport=thinking)
        records = self.records(result["run_dir"])
        self.assertEqual(sorted(r["question_id"] for r in records),
                         sorted({r["question_id"] for r in records}))  # none twice
        self.assertEqual(len(records), 8)
        self.assertTrue(all(r["classification"] for r in records))  # none lost
        asked = sorted(r["body"]["messages"][1]["content"] for r in server.requests)
        self.assertEqual(len(asked), 16)
        self.assertEqual(len(set(asked)), 16)  # every request reached the server once
        self.assertGreaterEqual(thinking.inner.reconnects, 10)  # closed connections were seen
        self.assertEqual(len(server.connections), thinking.inner.opened)
        self.assertFalse([e for e in self.events(result["run_dir"]) if e["event"] == "retry"])

    def test_a_close_just_as_the_request_arrives_is_resent_once_not_retried(self):
        server = self.serve(tls=True)
        transport, route, events = self.transport(), chat_route(server), []
        self.assertTrue(call(route, transport, events).ok)
        server.script(Reply(drop=True))  # the kept-alive connection is closed on arrival
        response = call(route, transport, events)
        self.assertEqual((response.ok, response.attempts, transport.resent), (True, 1, 1))
        self.assertEqual(events, [])
        self.assertEqual([r["connection"] for r in server.requests], [0, 0, 1])
        self.assertEqual(server.requests[1]["body"], server.requests[2]["body"])
        fresh = self.transport()  # on a new connection the same close is a retried failure
        server.script(Reply(drop=True))
        response = call(route, fresh, events)
        self.assertEqual((response.ok, response.attempts, fresh.resent), (True, 2, 0))
        self.assertEqual([e["reason"] for e in events], ["transport"])

    def test_connection_close_and_torn_bodies_discard_the_connection(self):
        server = self.serve()
        transport, route = self.transport(), chat_route(server)
        server.script(Reply(200, chat_success("one"), {"Connection": "close"}),
                      Reply(200, chat_success("two")), Reply(200, chat_success("cut"), tear=True))
        self.assertEqual(call(route, transport).text, "one")
        self.assertEqual(call(route, transport).text, "two")
        self.assertEqual(len(server.connections), 2)  # "Connection: close" was honoured
        response = call(route, transport)  # torn body: a transport failure, then a new connection
        self.assertEqual((response.ok, response.attempts), (True, 2))
        self.assertEqual([c["requests"] for c in server.connections], [1, 2, 1])

    def test_redirects_are_not_followed(self):
        server = self.serve()
        server.script(Reply(307, "", {"Location": server.base_url + "/elsewhere"}))
        response = call(chat_route(server), self.transport())
        self.assertEqual((response.ok, response.error_type, response.http_status,
                          response.attempts), (False, "http", 307, 1))
        self.assertEqual([r["path"] for r in server.requests], ["/v1/chat/completions"])

    def test_response_size_cap_without_content_length(self):
        server = self.serve()
        transport, route = self.transport(), chat_route(server)
        server.script(Reply(200, chat_success("x" * 5000), chunked=True),
                      Reply(200, chat_success("small"), chunked=True))
        with mock.patch.object(ehq_ref, "MAX_RESPONSE_BYTES", 2000):
            response = call(route, transport, retries=0)
            self.assertEqual((response.ok, response.error_type), (False, "transport"))
            self.assertIn("response larger than 2000 bytes", response.error_message)
            self.assertEqual(call(route, transport).text, "small")  # chunked, kept alive
        self.assertEqual(len(server.connections), 2)


class HTTPFramingTest(unittest.TestCase):
    """The HTTP/1.1 exchange written in the kit: one request head, and replies framed as
    RFC 9112 frames them, with http.client's limits and exceptions."""

    def reply(self, raw, limit=None):
        stream = io.BytesIO(raw)
        status, headers, keeps = ehq_ref.read_http_head(stream)
        body, reusable = ehq_ref.read_http_body(stream, status, headers, keeps, limit)
        return status, headers, body, reusable, stream.read()

    def test_the_request_head(self):
        head = ehq_ref.request_head("/v1/chat/completions", "api.example.com",
                                    {"Authorization": "Bearer k", "X-Seq": 7}, 42)
        self.assertEqual(head, b"POST /v1/chat/completions HTTP/1.1\r\nHost: api.example.com\r\n"
                               b"Accept-Encoding: identity\r\nContent-Length: 42\r\n"
                               b"Authorization: Bearer k\r\nX-Seq: 7\r\n\r\n")

    def test_a_header_that_would_split_the_request_is_refused_without_its_value(self):
        for name, value in (("Authorization", "Bearer sk-live\r\nX-Evil: 1"),
                            ("X-Key", "abc\nsk-live"), ("X-Key", "sk-live\0")):
            with self.assertRaises(ValueError) as caught:
                ehq_ref.request_head("/", "h", {name: value}, 0)
            self.assertNotIn("sk-live", str(caught.exception))
            self.assertIn(name, str(caught.exception))
        for name in ("Bad Name", "X:Y", "", "Caf\u00e9"):
            with self.assertRaises(ValueError):
                ehq_ref.request_head("/", "h", {name: "v"}, 0)

    def test_the_host_header(self):
        self.assertEqual(ehq_ref.host_header("api.example.com", 443, 443), "api.example.com")
        self.assertEqual(ehq_ref.host_header("127.0.0.1", 8080, 80), "127.0.0.1:8080")
        self.assertEqual(ehq_ref.host_header("::1", 8443, 443), "[::1]:8443")
        self.assertEqual(ehq_ref.host_header("b\u00fccher.example", 80, 80),
                         "xn--bcher-kva.example")

    def test_a_reply_with_a_length_leaves_the_next_bytes_unread(self):
        self.assertEqual(self.reply(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                    b"Content-Length: 2\r\nX-Ratelimit-Remaining-Requests: 9"
                                    b"\r\n\r\n{}NEXT"),
                         (200, {"content-type": "application/json", "content-length": "2",
                                "x-ratelimit-remaining-requests": "9"}, b"{}", True, b"NEXT"))

    def test_chunks_with_extensions_and_trailers(self):
        raw = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
               b"3;name=x\r\nabc\r\nA\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\nNEXT")
        self.assertEqual(self.reply(raw)[2:], (b"abc0123456789", True, b"NEXT"))

    def test_interim_replies_are_skipped_and_204_has_no_body(self):
        self.assertEqual(self.reply(b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n"
                                    b"Server: t\r\n\r\nNEXT"),
                         (204, {"server": "t"}, b"", True, b"NEXT"))

    def test_when_the_connection_can_be_kept(self):
        cases = {b"HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: 0": False,
                 b"HTTP/1.0 200 OK\r\nContent-Length: 0": False,
                 b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0": True,
                 b"HTTP/1.1 200 OK\r\nContent-Length: 0": True,
                 b"HTTP/1.1 200 OK": False}  # no length: the body ends at the close
        for head, reusable in cases.items():
            self.assertEqual(self.reply(head + b"\r\n\r\n")[3], reusable, head)

    def test_a_body_delimited_by_the_close(self):
        self.assertEqual(self.reply(b"HTTP/1.1 200 OK\r\n\r\n{\"a\": 1}")[2:4],
                         (b'{"a": 1}', False))

    def test_a_folded_header_continues_and_the_last_of_a_repeated_name_wins(self):
        headers = self.reply(b"HTTP/1.1 200 OK\r\nX-A: one\r\n  two\r\nX-B: 1\r\nx-b: 2\r\n"
                             b"Content-Length: 0\r\n\r\n")[1]
        self.assertEqual((headers["x-a"], headers["x-b"]), ("one two", "2"))

    def test_no_reply_at_all_is_a_closed_connection(self):
        with self.assertRaises(ehq_ref.http_client.RemoteDisconnected):
            self.reply(b"")
        self.assertTrue(ehq_ref._closed_before_reply(
            ehq_ref.http_client.RemoteDisconnected("closed")))

    def test_malformed_replies(self):
        client = ehq_ref.http_client
        cases = [(b"SPDY/3 200 OK\r\n\r\n", client.BadStatusLine),
                 (b"HTTP/1.1 2000 OK\r\n\r\n", client.BadStatusLine),
                 (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", client.HTTPException),
                 (b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n", client.HTTPException),
                 (b"HTTP/1.1 200 OK\r\nX: " + b"y" * 70000 + b"\r\n\r\n", client.LineTooLong),
                 (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", client.IncompleteRead),
                 (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
                  client.HTTPException),
                 (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
                  client.IncompleteRead),
                 (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabcd\r\n",
                  client.HTTPException),
                 (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n",
                  client.IncompleteRead)]
        for raw, error in cases:
            with self.assertRaises(error, msg=raw[:60]):
                self.reply(raw)
            self.assertIsNotNone(ehq_ref._transport_failure(error("x") if error is not
                                                            client.IncompleteRead else
                                                            error(b""), "h", None))

    def test_a_body_over_the_limit(self):
        for raw in (b"HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n01234567890",
                    b"HTTP/1.1 200 OK\r\n\r\n01234567890",
                    b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n6\r\n012345\r\n"
                    b"5\r\n67890\r\n0\r\n\r\n"):
            with self.assertRaises(ehq_ref.TransportError) as caught:
                self.reply(raw, limit=10)
            self.assertEqual(str(caught.exception), "response larger than 10 bytes")
        self.assertEqual(self.reply(b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789",
                                    limit=10)[2], b"0123456789")


class CertificateTest(ServerCase):
    def test_a_wrong_ca_is_a_clear_error_and_nothing_is_sent(self):
        server = self.serve(tls=True)
        transport, events = self.transport(), []
        response = call(chat_route(server, ca_file=OTHER_CA_FILE), transport, events)
        self.assertEqual((response.ok, response.error_type, response.attempts),
                         (False, "tls", 1))  # never retried, never sent unverified
        self.assertIn("TLS certificate verification failed for 127.0.0.1", response.error_message)
        self.assertIn(f"trusted: the CA file {OTHER_CA_FILE}", response.error_message)
        response = call(chat_route(server, ca_file=None), transport)
        self.assertEqual(response.error_type, "tls")
        self.assertIn("trusted: the system certificate store", response.error_message)
        self.assertEqual((server.requests, events), ([], []))
        self.assertGreaterEqual(server.handshake_failures, 1)
        self.assertTrue(call(chat_route(server), transport).ok)  # the right CA file works

    def test_an_unreadable_ca_file_is_named(self):
        server = self.serve(tls=True)
        response = call(chat_route(server, ca_file=self.path("missing.pem")), self.transport())
        self.assertEqual(response.error_type, "tls")
        self.assertIn(f"cannot load the CA file {self.path('missing.pem')}",
                      response.error_message)

    def test_ca_file_is_a_checked_route_field(self):
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.route_from_dict({"name": "a", "provider": "openai", "provider_model": "m",
                                     "ca_file": 3})
        self.assertIn("$.ca_file", str(caught.exception))
        self.assertNotIn("ca_file", ehq_ref.route_semantics(ehq_ref.route_from_dict(
            {"name": "a", "provider": "openai", "provider_model": "m", "ca_file": "ca.pem"})))


class ProxyTest(ServerCase):
    def test_https_goes_through_one_connect_tunnel_per_connection(self):
        server = self.serve(tls=True)
        proxy = LocalProxy(server.port)
        self.addCleanup(proxy.close)
        route = chat_route(server, base_url=server.url_for(TEST_HOST))
        with proxy_environment(HTTPS_PROXY=proxy.url.replace("://", "://ann:s3cret@")):
            transport = self.transport()
            results = [call(route, transport) for _ in range(5)]
        self.assertTrue(all(r.ok for r in results))
        (line, auth), = proxy.log  # one tunnel for five calls
        self.assertRegex(line, rf"^CONNECT {TEST_HOST}:{server.port} HTTP/1\.[01]$")
        self.assertEqual(auth, "Basic " + base64.b64encode(b"ann:s3cret").decode())
        self.assertEqual((len(server.requests), len(server.connections)), (5, 1))
        self.assertEqual(server.requests[0]["path"], "/v1/chat/completions")

    def test_the_tunnelled_host_name_is_verified(self):
        server = self.serve(tls=True)
        proxy = LocalProxy(server.port)
        self.addCleanup(proxy.close)
        route = chat_route(server, base_url=server.url_for("wrong.ehq-test.invalid"))
        with proxy_environment(https_proxy=proxy.url):
            response = call(route, self.transport())
        self.assertEqual(response.error_type, "tls")
        self.assertIn("verification failed for wrong.ehq-test.invalid", response.error_message)
        self.assertEqual(server.requests, [])

    def test_plain_http_proxy_no_proxy_and_loopback(self):
        server = self.serve()
        proxy = LocalProxy(server.port)
        self.addCleanup(proxy.close)
        route = chat_route(server, base_url=server.url_for(TEST_HOST))
        with proxy_environment(HTTP_PROXY=proxy.url):
            transport = self.transport()
            self.assertTrue(call(route, transport).ok)
            self.assertTrue(call(route, transport).ok)
            self.assertTrue(call(chat_route(server), transport).ok)  # loopback: never proxied
        target = f"http://{TEST_HOST}:{server.port}/v1/chat/completions"
        self.assertEqual(proxy.log, [(f"POST {target} HTTP/1.1", None)])
        self.assertEqual([r["path"] for r in server.requests],
                         [target, target, "/v1/chat/completions"])
        with proxy_environment(HTTP_PROXY=proxy.url, NO_PROXY="localhost,ehq-test.invalid"):
            response = call(route, self.transport(), retries=0)
        self.assertEqual(response.error_type, "transport")  # direct: the name does not resolve
        self.assertEqual(len(proxy.log), 1)


# --- Pacing from the server's numbers ------------------------------------------------------


class BudgetHeaderTest(unittest.TestCase):
    def test_go_durations(self):
        cases = {"1s": 1.0, "6m0s": 360.0, "20ms": 0.02, "1h2m3.5s": 3723.5, "2m59.56s": 179.56,
                 "0s": 0.0, "7": 7.0, "": None, "soon": None, "1x": None, "5 s": None}
        for text, seconds in cases.items():
            value = ehq_ref.go_duration(text)
            if seconds is None:
                self.assertIsNone(value, text)
            else:
                self.assertAlmostEqual(value, seconds, places=9, msg=text)

    def test_openai_headers(self):
        headers = {"x-ratelimit-limit-requests": "60", "x-ratelimit-remaining-requests": "59",
                   "x-ratelimit-remaining-tokens": "149984", "x-ratelimit-reset-requests": "1s",
                   "x-ratelimit-reset-tokens": "6m0s"}
        self.assertEqual(ehq_ref.openai_budget(headers, 0.0),
                         ehq_ref.Budget(59, 149984, 1.0, 360.0))
        self.assertIsNone(ehq_ref.openai_budget({"content-type": "application/json"}, 0.0))

    def test_anthropic_headers_take_the_tightest_token_budget(self):
        now = ehq_ref.rfc3339_seconds("2025-10-25T12:00:00Z")
        headers = {"anthropic-ratelimit-requests-remaining": "49",
                   "anthropic-ratelimit-requests-reset": "2025-10-25T12:00:30Z",
                   "anthropic-ratelimit-input-tokens-remaining": "18000",
                   "anthropic-ratelimit-input-tokens-reset": "2025-10-25T12:00:12Z",
                   "anthropic-ratelimit-output-tokens-remaining": "3000",
                   "anthropic-ratelimit-output-tokens-reset": "2025-10-25T12:00:05.500+00:00"}
        self.assertEqual(ehq_ref.anthropic_budget(headers, now),
                         ehq_ref.Budget(49, 3000, 30.0, 5.5))
        self.assertEqual(ehq_ref.PROVIDER_SPECS["anthropic"].budget, ehq_ref.anthropic_budget)
        self.assertIsNone(ehq_ref.PROVIDER_SPECS["gemini"].budget)
        self.assertIsNone(ehq_ref.rfc3339_seconds("tomorrow"))


class LimiterBudgetTest(unittest.TestCase):
    def limiter(self):
        self.clock = FakeClock(start=0.0)
        return ehq_ref.RateLimiter(clock=self.clock)

    def test_what_is_left_is_spread_until_the_reset(self):
        limiter = self.limiter()
        first = limiter.acquire()
        limiter.observe(first, ehq_ref.Budget(requests=3, requests_reset=6.0))
        limiter.release(first)
        for _ in range(4):
            limiter.release(limiter.acquire())
        self.assertEqual(limiter.log, [0.0, 2.0, 4.0, 6.0, 6.0])

    def test_requests_still_open_before_the_observed_one_count_as_spent(self):
        limiter = self.limiter()
        tickets = [limiter.acquire() for _ in range(3)]
        limiter.observe(tickets[2], ehq_ref.Budget(requests=2, requests_reset=10.0))
        limiter.acquire()
        self.assertEqual(limiter.log, [0.0, 0.0, 0.0, 10.0])

    def test_token_budget(self):
        limiter = self.limiter()
        first = limiter.acquire(100)
        limiter.observe(first, ehq_ref.Budget(tokens=1000, tokens_reset=4.0))
        limiter.acquire(500)  # 500 of 1000 left: waits 4 s x 500 / 1000
        limiter.acquire(600)  # 500 left: waits for the reset
        self.assertEqual(limiter.log, [0.0, 2.0, 4.0])

    def test_an_older_reply_does_not_replace_a_newer_budget(self):
        limiter = self.limiter()
        old, new = limiter.acquire(), limiter.acquire()
        limiter.observe(new, ehq_ref.Budget(requests=100, requests_reset=10.0))
        limiter.observe(old, ehq_ref.Budget(requests=0, requests_reset=10.0))
        limiter.acquire()  # 99 left (the old one is still open): 10 s / 99 apart, not 10 s
        self.assertEqual(limiter.log, [0.0, 0.0, 10.0 / 99])

    def test_cancel_wakes_a_waiting_worker(self):
        limiter = ehq_ref.RateLimiter()
        limiter.observe(limiter.acquire(), ehq_ref.Budget(requests=0, requests_reset=60.0))
        raised = []

        def wait():
            try:
                limiter.acquire()
            except ehq_ref.Cancelled:
                raised.append(time.monotonic())

        worker = threading.Thread(target=wait)
        worker.start()
        time.sleep(0.1)
        cancelled_at = time.monotonic()
        limiter.cancel()
        worker.join(5)
        self.assertEqual(len(raised), 1)
        self.assertLess(raised[0] - cancelled_at, 1.0)


def budget_server(limit, window, refused):
    """A chat server allowing ``limit`` requests per fixed window, announced OpenAI-style."""
    server = FakeProvider("chat", latency=0.005)
    state = {"start": None, "used": 0}

    def rule(body, index):
        now = time.monotonic()
        if state["start"] is None or now >= state["start"] + window:
            state.update(start=now, used=0)
        reset = f"{math.ceil((state['start'] + window - now) * 1000)}ms"
        if state["used"] >= limit:
            refused.append(index)
            return Reply(429, {"error": {"message": "Rate limit reached", "code": 429}}, {
                "retry-after-ms": reset[:-2], "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": reset})
        state["used"] += 1
        return Reply(200, chat_success(default_text(body)), {
            "x-ratelimit-limit-requests": str(limit),
            "x-ratelimit-remaining-requests": str(limit - state["used"]),
            "x-ratelimit-reset-requests": reset})

    server.rule = rule
    return server


class DeafLimiter(ehq_ref.RateLimiter):
    """A limiter that ignores the server's numbers (what the kit did before)."""

    def observe(self, ticket, budget):
        pass


class PacingTest(ServerCase):
    def run_calls(self, limiter_class, calls):
        refused = []
        server = budget_server(12, 0.3, refused)
        self.addCleanup(server.close)
        limiter, transport, route = limiter_class(), self.transport(), chat_route(server)

        def one(index):
            return ehq_ref.call_model(route, request_for(index), secrets=ehq_ref.Secrets({}),
                                      limiter=limiter, transport=transport,
                                      policy=ehq_ref.RetryPolicy(max_retries=20))

        results = list(ehq_ref.map_concurrently(one, range(calls), 8))
        self.assertTrue(all(r.ok for r in results))
        return refused, server

    def test_a_shrinking_budget_is_never_answered_with_a_429_burst(self):
        refused, server = self.run_calls(ehq_ref.RateLimiter, 60)
        self.assertEqual(refused, [])
        arrivals = sorted(r["time"] for r in server.requests)
        self.assertGreater(arrivals[-1] - arrivals[0], 4 * 0.3)  # five windows of 12 were needed

    def test_without_the_servers_numbers_the_same_load_is_refused(self):
        refused, _ = self.run_calls(DeafLimiter, 30)
        self.assertGreater(len(refused), 3)


class AdaptiveConcurrencyTest(ServerCase):
    def test_additive_increase_and_one_halving_per_overload(self):
        changes = []
        workers = ehq_ref.AdaptiveConcurrency(maximum=4,
                                              on_change=lambda *change: changes.append(change))
        workers.record(0, None, issued=1)  # one clean call at 1 worker: 2
        workers.record(1, None, issued=3)
        workers.record(2, None, issued=3)  # two clean calls at 2: 3
        workers.record(1, 429, issued=5)  # sent before the change: ignored
        workers.record(3, 529, issued=6)  # at 3: halved to 1
        workers.record(4, 429, issued=7)  # the same burst: ignored
        workers.record(6, None, issued=7)  # 2 again
        workers.record(7, None, issued=9)
        workers.record(8, None, issued=9)  # 3
        self.assertEqual(changes, [(1, 2, "increase", None), (2, 3, "increase", None),
                                   (3, 1, "overload", 529), (1, 2, "increase", None),
                                   (2, 3, "increase", None)])
        for ticket in range(9, 30):
            workers.record(ticket, None, issued=30)
        self.assertEqual((workers.workers, len(changes)), (4, 6))  # the maximum, reached once

    def test_worker_i_takes_items_only_while_i_is_below_the_limit(self):
        workers = ehq_ref.AdaptiveConcurrency(maximum=6, start=2)
        def name(index):
            time.sleep(0.005)
            return threading.current_thread().name

        names = set(ehq_ref.map_concurrently(name, range(40), workers))
        self.assertEqual(names, {"ehq_ref-worker-1", "ehq_ref-worker-2"})

    def test_converges_under_a_server_that_allows_n_concurrent_requests(self):
        n, refused = 3, []
        server = self.serve(latency=0.02)

        def rule(body, index):
            if server.active > n:
                refused.append(index)
                return Reply(429, {"error": {"message": "too many concurrent requests"}},
                             {"retry-after-ms": "20"})
            return None

        server.rule = rule
        workers = ehq_ref.AdaptiveConcurrency(maximum=12)
        limiter, transport, route = ehq_ref.RateLimiter(concurrency=workers), self.transport(), \
            chat_route(server)

        def one(index):
            return ehq_ref.call_model(route, request_for(index), secrets=ehq_ref.Secrets({}),
                                      limiter=limiter, transport=transport,
                                      policy=ehq_ref.RetryPolicy(max_retries=20))

        results = list(ehq_ref.map_concurrently(one, range(240), workers))
        self.assertTrue(all(r.ok for r in results))
        levels = [change[1] for change in workers.changes]
        first_cut = next(i for i, c in enumerate(workers.changes) if c[2] == "overload")
        self.assertEqual(levels[:first_cut], list(range(2, first_cut + 2)))  # one at a time
        # The server refuses only above n, so the first cut comes at n + 1 or later; how much
        # later depends on whether the host lets that many calls overlap (a loaded CI runner
        # may not), so the bounds above n are loose and the sawtooth is judged as a whole.
        self.assertTrue(n + 1 <= levels[first_cut - 1] <= 2 * n, levels)
        later = sorted(levels[first_cut:])
        self.assertGreaterEqual(later[0], 1)
        self.assertLessEqual(later[len(later) * 9 // 10], n + 2, later)  # rarely above n + 2
        self.assertLessEqual(later[-1], 2 * n + 1, later)  # never near the maximum of 12
        self.assertTrue(2 <= sum(later) / len(later) <= n + 1, later)  # a sawtooth around n
        self.assertLess(len(refused), 0.35 * 240)  # 12 fixed workers: more refusals than calls
        self.assertLessEqual(len(server.connections), max(levels) + transport.reconnects)

    def test_a_run_records_each_change_as_an_event(self):
        server = self.serve(latency=0.01)
        server.rule = lambda body, index: Reply(  # a busy spell: retries get refused too
            429, {"error": {"message": "busy"}}, {"retry-after-ms": "10"}) \
            if 12 <= index < 24 else None
        registry = self.registry({"name": "local", "provider": "openai_compatible",
                                  "provider_model": "local-model", "base_url": server.base_url})
        result = ehq_ref.run_evaluation(self.options(models=("local", ), registry=registry,
                                                     concurrency="auto", max_concurrency=8))
        self.assertEqual(result["exit_code"], 0)
        changes = [(e["previous"], e["workers"], e["reason"], e["status"])
                   for e in self.events(result["run_dir"]) if e["event"] == "concurrency"]
        self.assertEqual(changes[:3], [(1, 2, "increase", None), (2, 3, "increase", None),
                                       (3, 4, "increase", None)])
        self.assertIn("overload", [change[2] for change in changes])
        self.assertEqual(result["manifest"]["settings"]["concurrency"], "auto")
        self.assertEqual(result["manifest"]["settings"]["max_concurrency"], 8)

    def test_bad_concurrency_is_a_usage_error(self):
        result = run_cli("run", "--concurrency", "lots")
        self.assertEqual(result.code, 2)
        self.assertIn("expected a number of workers >= 1 or auto, got 'lots'", result.err)
        result = run_cli("run", "--concurrency", "auto", "--max-concurrency", "0", "--output",
                         self.path("runs"), "--env-file", self.path("none"))
        self.assertEqual(result.code, 2)
        self.assertIn("--max-concurrency: expected", result.err)


class MapConcurrentlyTest(unittest.TestCase):
    def test_stopping_early_stops_the_workers_and_calls_on_stop(self):
        stopped, started = [], []

        def slow(index):
            started.append(index)
            time.sleep(0.05 if index == 0 else 0.3)
            return index

        begun = time.monotonic()
        results = ehq_ref.map_concurrently(slow, range(100), 4,
                                           on_stop=lambda: stopped.append(time.monotonic()))
        self.assertEqual(next(results), 0)
        results.close()
        self.assertEqual(len(stopped), 1)
        self.assertLess(time.monotonic() - begun, 2.0)
        time.sleep(0.4)
        self.assertLessEqual(len(started), 8)  # no new item after the stop

    def test_a_failure_in_a_worker_is_raised_to_the_caller(self):
        def fail(index):
            if index == 5:
                raise ValueError("item 5")
            return index

        with self.assertRaisesRegex(ValueError, "item 5"):
            list(ehq_ref.map_concurrently(fail, range(20), 3))


# --- Routes without a file -------------------------------------------------------------------


class RoutesFromFlagsTest(ServerCase):
    def test_a_flag_route_is_recorded_exactly_like_a_registry_route(self):
        server = self.serve(responder=default_text)
        name = "openai_compatible:local-model"
        flagged = ehq_ref.run_evaluation(self.options(models=(name, ), base_url=server.base_url,
                                                      run_id="flags", limit=6))
        registry = self.registry({"name": name, "provider": "openai_compatible",
                                  "provider_model": "local-model",
                                  "base_url": server.base_url})
        filed = ehq_ref.run_evaluation(self.options(models=(name, ), registry=registry,
                                                    run_id="file", limit=6))
        self.assertEqual(flagged["manifest"]["registry"]["routes"],
                         filed["manifest"]["registry"]["routes"])
        self.assertEqual(flagged["manifest"]["run"]["fingerprint"],
                         filed["manifest"]["run"]["fingerprint"])
        route = flagged["manifest"]["registry"]["routes"][name]
        self.assertEqual((route["provider"], route["provider_model"], route["base_url"]),
                         ("openai_compatible", "local-model", server.base_url))
        self.assertEqual(self.records(flagged["run_dir"])[0]["model"], name)

    def test_every_provider_and_the_key_variable(self):
        server = self.serve("anthropic")
        with mock.patch.dict(os.environ, {"EHQ_TEST_FLAG_KEY": "sk-flag-test-000111222"}):
            result = run_cli("run", "--model", "anthropic:claude-sonnet-4-20250514",
                             "--base-url", server.base_url, "--api-key-env", "EHQ_TEST_FLAG_KEY",
                             "--limit", "2", "--category", "HNQ", "--output", self.path("runs"),
                             "--run-id", "a", "--no-cache", "--quiet", "--env-file",
                             self.path("none"))
        self.assertEqual(result.code, 0, result)
        self.assertEqual(server.requests[0]["headers"]["x-api-key"], "sk-flag-test-000111222")
        self.assertEqual(server.requests[0]["path"], "/v1/messages")
        for provider in ehq_ref.PROVIDERS:
            route = ehq_ref.flag_route(f"{provider}:some/model:tag", base_url="http://h/v1")
            self.assertEqual((route.provider, route.provider_model), (provider, "some/model:tag"))

    def test_flag_errors_are_one_line_exit_2(self):
        cases = [(("--model", "openai_compatible:m"), "needs --base-url URL"),
                 (("--model", "acme:m"), "unknown model 'acme:m'"),
                 (("--model", "openai_compatible:"), "the model is missing"),
                 (("--base-url", "http://h/v1"), "--base-url applies to PROVIDER:MODEL routes"),
                 (("--model", "openai:gpt-4o-mini"), "missing API key: set OPENAI_API_KEY")]
        with mock.patch.dict(os.environ, {"OPENAI_API_KEY": ""}):
            for args, message in cases:
                result = run_cli("run", *args, "--output", self.path("runs"), "--env-file",
                                 self.path("none"))
                self.assertEqual(result.code, 2, args)
                self.assertIn(message, result.err, args)
                self.assertEqual(len(result.err.strip().splitlines()), 1, result.err)


class RoutesCommandTest(ServerCase):
    def setUp(self):
        super().setUp()
        self.echo = self.serve()
        self.echo.rule = lambda body, index: Reply(200, chat_success("OK", model=body["model"]))
        self.dated = self.serve("openai")
        self.checking = self.serve()
        self.checking.rule = lambda body, index: Reply(404, {"error": {
            "message": f"The model `{body['model']}` does not exist.", "code": 404}}) \
            if body["model"] != "local-model" else None
        self.refusing = self.serve("openai")
        self.refusing.rule = lambda body, index: Reply(401, {"error": {
            "message": "Incorrect API key provided", "code": "invalid_api_key"}})
        self.models = self.registry(
            {"name": "echo", "provider": "openai_compatible", "provider_model": "local-model",
             "base_url": self.echo.base_url},
            {"name": "dated", "provider": "openai", "provider_model": "gpt-4o-mini",
             "base_url": self.dated.base_url, "api_key_env": "EHQ_TEST_ROUTE_KEY"},
            {"name": "checking", "provider": "openai_compatible", "provider_model": "local-model",
             "base_url": self.checking.base_url},
            {"name": "refusing", "provider": "openai", "provider_model": "gpt-4o-mini",
             "base_url": self.refusing.base_url, "api_key_env": "EHQ_TEST_ROUTE_KEY"},
            {"name": "keyless", "provider": "anthropic", "provider_model": "claude-x",
             "api_key_env": "EHQ_TEST_ABSENT_KEY"})

    def routes(self, *args):
        with mock.patch.dict(os.environ, {"EHQ_TEST_ROUTE_KEY": "sk-route-test-99887766"}):
            return run_cli("routes", "--registry", self.models, "--env-file", self.path("none"),
                           *args)

    def test_listing_makes_no_request(self):
        result = self.routes()
        self.assertEqual(result.code, 0, result)
        listed = {r["name"]: r for r in result.json()["routes"]}
        self.assertEqual(sorted(listed),
                         ["checking", "dated", "echo", "keyless", "offline", "refusing"])
        self.assertEqual((listed["dated"]["key_env"], listed["dated"]["key_set"],
                          listed["keyless"]["key_set"]), ("EHQ_TEST_ROUTE_KEY", True, False))
        self.assertNotIn("check", listed["echo"])
        self.assertEqual(self.echo.requests + self.dated.requests, [])

    def test_check_reports_identity_latency_and_key(self):
        result = self.routes("--model", "echo,dated,checking,offline", "--check")
        self.assertEqual(result.code, 0, result)
        checks = {r["name"]: r["check"] for r in result.json()["routes"]}
        echo = checks["echo"]
        self.assertEqual((echo["ok"], echo["resolved_model"], echo["identity_match"],
                          echo["identity_discriminating"], echo["key"]),
                         (True, "local-model", True, False, "not needed"))
        self.assertIn("echoes any requested name", echo["identity_note"])
        self.assertEqual([r["body"]["model"] for r in self.echo.requests],
                         ["local-model", ehq_ref.IDENTITY_PROBE_MODEL])
        self.assertEqual(self.echo.requests[0]["body"]["messages"][1]["content"],
                         ehq_ref.CHECK_PROMPT)
        dated = checks["dated"]
        self.assertEqual((dated["resolved_model"], dated["identity_match"],
                          dated["identity_discriminating"], dated["key"]),
                         ("gpt-4o-mini-2024-07-18", True, True, "works"))
        self.assertEqual(len(self.dated.requests), 1)  # a dated name needs no probe
        self.assertEqual(checks["checking"]["identity_discriminating"], True)
        self.assertIn("refused", checks["checking"]["identity_note"])
        self.assertTrue(all(c["latency_s"] > 0 for c in checks.values()))
        self.assertNotIn("sk-route-test-99887766", result.out + result.err)

    def test_a_failing_check_exits_1(self):
        result = self.routes("--model", "refusing,keyless", "--check")
        self.assertEqual(result.code, 1, result)
        checks = {r["name"]: r["check"] for r in result.json()["routes"]}
        self.assertEqual((checks["refusing"]["key"], checks["refusing"]["error_type"]),
                         ("rejected", "authentication"))
        self.assertEqual(checks["keyless"]["key"], "missing")
        self.assertEqual(len(self.refusing.requests), 1)
        self.assertEqual(result.err.splitlines(), [
            "ehq_ref: route refusing: check failed: authentication: HTTP 401: "
            "Incorrect API key provided",
            "ehq_ref: route keyless: check failed: authentication: EHQ_TEST_ABSENT_KEY is not "
            "set (route keyless); no request was sent"])

    def test_a_flag_route_and_bad_input(self):
        result = run_cli("routes", "--model", "openai_compatible:local-model", "--base-url",
                         self.echo.base_url, "--check", "--env-file", self.path("none"))
        self.assertEqual(result.code, 0, result)
        self.assertEqual(result.json()["routes"][0]["check"]["identity_discriminating"], False)
        self.assertEqual(self.routes("--model", "nope").code, 2)
        bad = self.write("bad.json", '[{"name": "a", "provider": "acme", "provider_model": "m"}]')
        result = run_cli("routes", "--registry", bad)
        self.assertEqual(result.code, 2)
        self.assertIn("bad.json: $[0].provider: expected one of", result.err)


# --- Cancellation ----------------------------------------------------------------------------


class CancellationTest(ServerCase):
    def interrupt(self, sig, concurrency):
        server = self.serve(responder=default_text)
        fast = 16
        server.rule = lambda body, index: Reply(200, chat_success(default_text(body)),
                                                delay=30.0) if index >= fast else None
        command = [sys.executable, KIT, "run", "--model", "openai_compatible:local-model",
                   "--base-url", server.base_url, "--output", self.path("runs"), "--run-id", "r",
                   "--quiet", "--no-cache", "--reproducible", "--concurrency", str(concurrency),
                   "--env-file", self.path("none")]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                   text=True,
                                   preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while len(server.requests) < fast + concurrency and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # the slow calls are in flight, waiting for their replies
        records = self.path("runs", "r", "records.jsonl")
        with open(records, "rb") as handle:
            before = handle.read().count(b"\n")
        sent = time.monotonic()
        process.send_signal(sig)
        code = process.wait(timeout=30)
        elapsed = time.monotonic() - sent
        error = process.stderr.read()
        process.stderr.close()
        folder = self.path("runs", "r")
        self.assertEqual((code, error), (130, "ehq_ref: interrupted; every finished item is kept, "
                                              f"resume with: python ehq_ref.py run --resume "
                                              f"{folder}\n"))
        self.assertLess(elapsed, 2.0)
        kept = self.records(self.path("runs", "r"))
        self.assertGreaterEqual(len(kept), before)
        self.assertGreater(len(kept), 0)
        self.assertEqual(run_cli("status", self.path("runs", "r")).json()["status"],
                         "in_progress_or_interrupted")
        server.rule = None
        server.requests.clear()
        result = run_cli("run", *command[3:], "--resume")
        self.assertEqual(result.code, 0, result)
        asked = {r["body"]["messages"][1]["content"] for r in server.requests}
        done = {r["question"] for r in kept}
        self.assertFalse([q for q in done if any(q in prompt for prompt in asked)])  # not again
        self.assertEqual(len(self.records(self.path("runs", "r"))), 40)
        self.assertTrue(ehq_ref.verify_run(self.path("runs", "r"))["valid"])

    def test_ctrl_c_stops_workers_within_two_seconds_keeping_records(self):
        self.interrupt(signal.SIGINT, 4)

    def test_sigterm_stops_a_single_worker_run_the_same_way(self):
        self.interrupt(signal.SIGTERM, 1)


if __name__ == "__main__":
    unittest.main()
