"""The shortcuts that cut the run's own work per call give exactly what the long way gives:
the hash chain's one encoding, the reply reader, the rate-limit header reader, the offline
model's kept plans, the request hash shared with the cache and the catalog's kept hashes."""

import hashlib
import json
import os
import random
import unittest

from support import TempDirTestCase, ehq_ref

from fake_provider import FakeProvider


def chain_line_by_definition(record, seq, prev_hash):
    """chain_line as the log's banner defines it: hash the record with seq and prev_hash, then
    write it with the hash."""
    body = dict(record, seq=seq, prev_hash=prev_hash)
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)
    body["hash"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
    line = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False) + "\n"
    return body, line.encode("utf-8")


# keys that sort before "hash", after it, and right beside it
KEYS = ["", "A", "_", "at", "event", "h", "ha", "has", "hasg", "hash0", "hash_", "hasi", "hat",
        "item_id", "latency_s", "prev", "seq0", "z", "\u00e9", "\u2019x", "\U0001f600"]


def random_value(rng, depth=0):
    roll = rng.random()
    if depth < 2 and roll < 0.2:
        return {rng.choice(KEYS): random_value(rng, depth + 1) for _ in range(rng.randrange(4))}
    if depth < 2 and roll < 0.3:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return rng.choice([None, True, False, 0, -7, 2.5, -0.0, 1e300, 10 ** 20, "", "x",
                       "\u00e9\u2028\"quoted\"\\", "\U0001f600 \x00 \x1f"])


class ChainLineTest(unittest.TestCase):
    def test_one_encoding_gives_the_defined_line_and_hash(self):
        rng = random.Random(7)
        for number in range(3000):
            record = {key: random_value(rng) for key in rng.sample(KEYS, rng.randrange(len(KEYS)))}
            with self.subTest(record=record):
                self.assertEqual(ehq_ref.chain_line(record, number, "p" * 64),
                                 chain_line_by_definition(record, number, "p" * 64))

    def test_record_with_no_key_before_hash(self):
        stored, line = ehq_ref.chain_line({"x": 1}, 0, ehq_ref.GENESIS_HASH)
        self.assertTrue(line.startswith(b'{"hash":"' + stored["hash"].encode() + b'","prev_hash"'))
        self.assertEqual((stored, line), chain_line_by_definition({"x": 1}, 0,
                                                                  ehq_ref.GENESIS_HASH))
        self.assertEqual(set(stored), {"x", "seq", "prev_hash", "hash"})

    def test_bad_records_are_refused_as_before(self):
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.chain_line({1: "a number as a key"}, 0, "p")
        self.assertIn("object keys must be strings", str(caught.exception))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.chain_line({"v": float("nan")}, 0, "p")
        self.assertIn("$.v", str(caught.exception))

    def test_canonical_json_is_json_dumps_with_its_options(self):
        rng = random.Random(3)
        for _ in range(500):
            value = random_value(rng)
            self.assertEqual(ehq_ref.canonical_json(value),
                             json.dumps(value, sort_keys=True, separators=(",", ":"),
                                        ensure_ascii=False, allow_nan=False))
        with self.assertRaises(ValueError):
            ehq_ref.canonical_json([float("inf")])


class ChainedLogAppendTest(TempDirTestCase):
    def test_appends_land_at_the_end_after_the_tail_was_read(self):
        path = self.path("events.jsonl")
        with ehq_ref.ChainedLog(path, durable=False) as log:
            log.append({"event": "a"})
        with ehq_ref.ChainedLog(path, durable=False) as log:  # reads the tail, then appends
            log.append({"event": "b"})
            ehq_ref.append_event(path, {"event": "from another writer"}, durable=False)
            log.append({"event": "c"})  # sees the other writer's line (size changed)
        report = ehq_ref.verify_log(path)
        self.assertTrue(report["valid"], report)
        with open(path, encoding="utf-8") as handle:
            events = [json.loads(line)["event"] for line in handle]
        self.assertEqual(events, ["a", "b", "from another writer", "c"])


class ReplyBodyTest(unittest.TestCase):
    def nested(self, depth):
        return ("[" * depth + "]" * depth).encode()

    def test_depth_limit_with_and_without_the_bracket_count(self):
        limit = ehq_ref.MAX_REPLY_DEPTH
        self.assertIsNotNone(ehq_ref.read_reply_body(self.nested(limit)))
        self.assertIsNone(ehq_ref.read_reply_body(self.nested(limit + 1)))
        # many brackets inside a string: counted, so the depth is walked (and is 2)
        text = json.dumps({"choices": [{"text": "[{" * 200}]}).encode()
        self.assertEqual(ehq_ref.read_reply_body(text), {"choices": [{"text": "[{" * 200}]})

    def test_what_is_not_a_reply_body(self):
        for data in (b"", b"  ", b"\xff", b'{"a": NaN}', b'{"a": 1e400}', b'"\\ud800"',
                     "\ufeff{}".encode(), b'{"a": 1} x'):
            with self.subTest(data=data):
                self.assertIsNone(ehq_ref.read_reply_body(data))
        self.assertEqual(ehq_ref.read_reply_body(b' {"a": [1.5, true]} '), {"a": [1.5, True]})


class OpenAIBudgetTest(unittest.TestCase):
    def test_absent_headers_and_each_header_alone(self):
        self.assertIsNone(ehq_ref.openai_budget({}, 0.0))
        self.assertIsNone(ehq_ref.openai_budget({"x-request-id": "r"}, 0.0))
        alone = {"x-ratelimit-remaining-requests": ehq_ref.Budget(requests=7),
                 "x-ratelimit-remaining-tokens": ehq_ref.Budget(tokens=7),
                 "x-ratelimit-reset-requests": ehq_ref.Budget(requests_reset=7.0),
                 "x-ratelimit-reset-tokens": ehq_ref.Budget(tokens_reset=7.0)}
        self.assertEqual(tuple(alone), ehq_ref.OPENAI_BUDGET_HEADERS)
        for name, budget in alone.items():
            self.assertEqual(ehq_ref.openai_budget({name: "7"}, 0.0), budget)
        self.assertIsNone(ehq_ref.openai_budget({"x-ratelimit-remaining-requests": "many"}, 0.0))


class ReadTimeoutTest(unittest.TestCase):
    def test_a_kept_connection_takes_each_calls_read_timeout(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        transport = ehq_ref.HTTPTransport()
        self.addCleanup(transport.close)
        url = server.base_url + "/chat/completions"
        seen = []
        for timeout in (5.0, 5.0, 7.5, 5.0):
            transport.post(url, {}, {"model": "m", "messages": []}, read_timeout=timeout)
            (pool,) = transport._pools.values()
            (connection,) = pool.values()
            seen.append((id(connection), connection.sock.gettimeout()))
        self.assertEqual(len({ident for ident, _ in seen}), 1)  # one kept connection
        self.assertEqual([timeout for _, timeout in seen], [5.0, 5.0, 7.5, 5.0])


class OfflinePlanTest(unittest.TestCase):
    def test_kept_plans_equal_plans_made_anew(self):
        items = [dict(item) for item in ehq_ref.EXAMPLE_ITEMS]
        for seed in (0, 42, "42|epoch 1", True, 1, 1.0):
            for item in items:
                category = ehq_ref.item_category(item)
                anew = ehq_ref._offline_plan.__wrapped__(
                    f"ehq_ref-offline|{seed}|{ehq_ref.item_id(item)}", category,
                    tuple(ehq_ref.gold_answers(item)) if category in ("PCQ", "HNQ") else (),
                    item.get("injected"), item.get("document"))
                self.assertEqual(ehq_ref.offline_plan(seed, item), anew)
                self.assertEqual(ehq_ref.offline_plan(seed, item), anew)  # kept this time
        self.assertLessEqual(ehq_ref._offline_plan.cache_info().currsize, 256)

    def test_same_value_of_another_type_is_another_plan(self):
        item = {"question_id": "X-1", "category": "FEQ", "question": "Who is X?"}
        for injected in (1, True, "1"):
            plan = ehq_ref.offline_plan(5, dict(item, injected=injected))
            anew = ehq_ref._offline_plan.__wrapped__("ehq_ref-offline|5|X-1", "FEQ", (),
                                                     injected, None)
            self.assertEqual(plan, anew)

    def test_unhashable_field_is_planned_without_the_cache(self):
        item = {"question_id": "X-2", "category": "FEQ", "question": "Who is X?",
                "injected": ["a", "list"]}
        self.assertEqual(ehq_ref.offline_plan(5, item), ehq_ref._offline_plan.__wrapped__(
            "ehq_ref-offline|5|X-2", "FEQ", (), ["a", "list"], None))


class RequestHashTest(TempDirTestCase):
    def test_cache_key_given_equals_key_computed(self):
        cache = ehq_ref.ResponseCache(self.path("cache"))
        identity = {"provider": "openai_compatible", "messages": [{"role": "user",
                                                                   "content": "q"}]}
        response = ehq_ref.Response(ok=True, text="an answer", attempts=1)
        cache.put(identity, response, ehq_ref.hash_value(identity))
        self.assertEqual(cache.get(identity).text, "an answer")
        self.assertEqual(cache.get(identity, ehq_ref.hash_value(identity)).text, "an answer")
        cache.put(dict(identity, other=1), response)
        self.assertTrue(cache.get(dict(identity, other=1),
                                  ehq_ref.hash_value(dict(identity, other=1))).cache_hit)

    def test_the_event_names_the_hash_the_cache_files_it_under(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        route = ehq_ref.Route(name="local", provider="openai_compatible",
                              provider_model="local-model", base_url=server.base_url,
                              requires_api_key=False)
        options = ehq_ref.RunOptions(cache_dir=self.path("cache"), env_file=None)
        with ehq_ref.ChainedLog(self.path("events.jsonl"), durable=False) as events:
            ctx = ehq_ref.RunContext(options, events, secrets=ehq_ref.Secrets({}))
            self.addCleanup(ctx.close)
            request = ehq_ref.Request("answer", "sys", "Who wrote it?", 16, "I-1")
            first, second = ctx.call(route, request), ctx.call(route, request)
        self.assertEqual((first.cache_hit, second.cache_hit), (False, True))
        with open(self.path("events.jsonl"), encoding="utf-8") as handle:
            logged = [json.loads(line) for line in handle]
        self.assertEqual([e["event"] for e in logged], ["request", "cache_hit"])
        key = ehq_ref.hash_value(dict(request.semantic(route), kit_cache=1))
        self.assertEqual({e["request_hash"] for e in logged}, {key})
        self.assertTrue(os.path.exists(self.path("cache", key[:2], key + ".json")))
        self.assertEqual(len(server.requests), 1)


def redact_by_definition(text, keys):
    """Secrets.redact as its docstring defines it: every run of SECRET_FRAGMENT or more
    characters of a key replaced by [REDACTED], then any "Bearer <token>"."""
    size = ehq_ref.SECRET_FRAGMENT
    fragments = {key[i:i + size] for key in keys for i in range(len(key) - size + 1)}
    covered = [False] * len(text)
    for index in range(len(text) - size + 1):
        if text[index:index + size] in fragments:
            covered[index:index + size] = [True] * size
    out, index = [], 0
    while index < len(text):
        if covered[index]:
            while index < len(text) and covered[index]:
                index += 1
            out.append("[REDACTED]")
        else:
            out.append(text[index])
            index += 1
    return ehq_ref.re.sub(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}", r"\1[REDACTED]", "".join(out))


class SecretsTest(unittest.TestCase):
    KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"

    def texts(self, key):
        rng = random.Random(11)
        pieces = ["a", "b", "e", "r", " ", "\t", "B", "E", "-", "x", "y" * 30, "\u017f", "\u212a"]
        texts = ["", "short", "Bearer abcdefgh", "BEARER\t12345678", "bearer 1234567",
                 key, key[3:11], key[:7], "x" + key[10:18] + "y", "Authorization: Bearer " + key,
                 "a" * 64, "x" * 300 + key[9:30]]
        for _ in range(3000):
            texts.append("".join(rng.choice(pieces + [key[rng.randrange(len(key)):][:12]])
                                 for _ in range(rng.randrange(40))))
        return texts

    def test_redact_equals_its_definition_first_time_and_remembered(self):
        secrets = ehq_ref.Secrets({"K": self.KEY, "W": "  " + self.KEY[:20] + " \n"})
        secrets.get("K")
        secrets.get("W")
        keys = {self.KEY, "  " + self.KEY[:20] + " \n", self.KEY[:20]}
        for text in self.texts(self.KEY) * 2:  # the second time, clean texts are remembered
            self.assertEqual(secrets.redact(text), redact_by_definition(text, keys), text)
        self.assertLessEqual(len(secrets._redaction[1]), ehq_ref.CLEAN_TEXTS_KEPT)

    def test_a_text_remembered_clean_is_redacted_once_its_key_is_handed_out(self):
        environ = {"A": "first-key-0123456789"}
        secrets = ehq_ref.Secrets(environ)
        secrets.get("A")
        text = "echoed: second-key-9876543210"
        self.assertEqual(secrets.redact(text), text)  # clean, and remembered as clean
        environ["B"] = "second-key-9876543210"
        self.assertEqual(secrets.get("B"), "second-key-9876543210")
        self.assertEqual(secrets.redact(text), "echoed: [REDACTED]")
        self.assertEqual(secrets.scrub({text: [text]}), {"echoed: [REDACTED]":
                                                         ["echoed: [REDACTED]"]})

    def test_get_checks_the_header_value_every_time_it_is_refused(self):
        secrets = ehq_ref.Secrets({"K": "abc\ndefghijk", "OK": " okay-key-123 \n"})
        for _ in range(2):
            with self.assertRaises(ehq_ref.InputError) as caught:
                secrets.get("K")
            self.assertNotIn("defghijk", str(caught.exception))
            self.assertEqual(secrets.get("OK"), "okay-key-123")
        self.assertEqual(secrets.redact("okay-key-123"), "[REDACTED]")


class ModelIdentityTest(unittest.TestCase):
    def test_kept_canonical_names_equal_names_made_anew(self):
        names = [None, "", "gpt-4o-mini", "GPT-4o-Mini-2024-07-18", "models/gemini-2.5-flash",
                 "Qwen/Qwen2.5-7B-Instruct:fastest", "\u00c9t\u00e9-7B", "local-model"] * 2
        for name in names:
            self.assertEqual(ehq_ref.canonical_model(name),
                             ehq_ref.canonical_model.__wrapped__(name))
        self.assertEqual(ehq_ref.canonical_model("GPT-4o-Mini-2024-07-18"), "gpt4omini20240718")
        self.assertLessEqual(ehq_ref.canonical_model.cache_info().currsize, 256)
        route = ehq_ref.Route(name="r", provider="openai", provider_model="gpt-4o-mini")
        self.assertTrue(ehq_ref.model_identity(route, "gpt-4o-mini-2024-07-18"))
        self.assertFalse(ehq_ref.model_identity(route, "gpt-4o-2024-08-06"))
        self.assertIsNone(ehq_ref.model_identity(route, None))


class CatalogTest(TempDirTestCase):
    def test_catalog_with_kept_hashes_equals_one_hashed_anew(self):
        result = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.tmp, run_id="r", progress="quiet", use_cache=False, env_file=None,
            reproducible=True, bootstrap=20))
        folder = result["run_dir"]
        catalog = os.path.join(folder, ehq_ref.CATALOG)
        with open(catalog, "rb") as handle:
            written = handle.read()
        ehq_ref.write_catalog(folder)  # every file read and hashed again
        with open(catalog, "rb") as handle:
            self.assertEqual(handle.read(), written)
        self.assertIn("events.jsonl", json.loads(written)["artifacts"])
        self.assertTrue(ehq_ref.verify_run(folder)["valid"])


if __name__ == "__main__":
    unittest.main()
