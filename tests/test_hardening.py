"""Hardening: one test per hole an adversarial pass found (secrets, tampering, odd replies,
symlinks, flags, temp files, bad files, error places, the run lock)."""

import errno
import json
import os
import shutil
import unittest
from unittest import mock

from fake_provider import FakeClock, FakeProvider, Reply, chat_success
from support import EXAMPLES, TempDirTestCase, ehq_ref, run_cli, run_process

KEY = "sk-Hx7Qv2ZrT9mWk4Lp8NcB3yFd6GsJ"


def fragments(key, size=ehq_ref.SECRET_FRAGMENT):
    """Every run of ``size`` characters of a key."""
    return {key[i:i + size] for i in range(len(key) - size + 1)}


def tree_text(*folders):
    """(relative path, text) of every file under the folders, decoded leniently."""
    found = []
    for folder in folders:
        for base, _, names in os.walk(folder):
            for name in names:
                full = os.path.join(base, name)
                with open(full, "rb") as handle:
                    found.append((full, handle.read().decode("utf-8", "replace")))
    return found


class HardeningCase(TempDirTestCase):
    def registry(self, server, **route):
        entry = dict(name="local", provider="openai_compatible", provider_model="local-model",
                     base_url=server.base_url, requires_api_key=False, read_timeout=5.0,
                     model_identity_policy="record")
        entry.update(route)
        return self.write("models.json", json.dumps({"models": [entry]}))

    def options(self, **changes):
        fields = dict(output=self.path("runs"), run_id="r", progress="quiet",
                      cache_dir=self.path("cache"), bootstrap=0, env_file=None,
                      reproducible=True, max_failure_rate=1.0)
        fields.update(changes)
        return ehq_ref.RunOptions(**fields)

    def records(self, folder, name="records.jsonl"):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def server(self, kind="chat"):
        server = FakeProvider(kind)
        self.addCleanup(server.close)
        return server

    def offline_run(self, run_id="r", *extra):
        result = run_cli("run", "--output", self.path("runs"), "--run-id", run_id,
                         "--reproducible", "--bootstrap", "0", "--quiet", *extra)
        self.assertEqual(result.code, 0, result)
        return self.path("runs", run_id)


class SecretTest(HardeningCase):
    """Hole 1: a key never reaches a file, the cache, stdout or stderr."""

    def echo_server(self):
        server = self.server()

        def rule(body, index):
            echoed = server.requests[index]["headers"].get("authorization", "")
            if index == 0:  # an error reply that echoes the key, retried
                return Reply(500, {"error": {"message": f"no such key {KEY}", "auth": echoed}},
                             headers={"x-echo": KEY, "retry-after": "0"})
            prompt = json.dumps(body)
            text = "85" if "confidence" in prompt.lower() else f"It is Paris, says {KEY}."
            reply = chat_success(f"{text} {KEY[5:17]}", model="local-model")
            reply.update(id=KEY, system_fingerprint=echoed, echo={KEY: [KEY, {"k": KEY}]})
            reply["usage"]["echo"] = KEY
            reply["choices"][0]["message"]["refusal"] = KEY
            return Reply(200, reply, headers={"x-request-id": KEY, "x-echo-auth": echoed,
                                              f"x-{KEY.lower()[3:]}": "1"})

        server.rule = rule
        return server

    def test_key_echoed_in_every_field_and_header_is_in_no_output(self):
        server = self.echo_server()
        registry = self.registry(server, requires_api_key=True, api_key_env="ECHO_KEY")
        env = dict(os.environ, ECHO_KEY=KEY + "\r")  # a Windows-edited key file
        runs, cache = self.path("runs"), self.path("cache")
        outputs = []
        for extra in ((), ("--resume", "r")):
            result = run_process("run", "--registry", registry, "--model", "local", "--output",
                                 runs, "--run-id", "r", "--cache-dir", cache, "--limit", "6",
                                 "--json-events", "--bootstrap", "0", "--reproducible",
                                 "--max-failure-rate", "1", *extra, env=env)
            self.assertIn(result.code, (0, 1), result)
            outputs += [result.out, result.err]
        for command in (("verify-run", "runs/r"), ("status", "runs/r")):
            result = run_process(*command, cwd=self.tmp, env=env)
            outputs += [result.out, result.err]
        self.assertTrue(any(r["headers"].get("authorization") == f"Bearer {KEY}"
                            for r in server.requests))  # the key was sent, stripped
        records = self.records(os.path.join(runs, "r"))
        self.assertTrue(any("[REDACTED]" in (r.get("answer_text") or "") for r in records))
        texts = tree_text(runs, cache) + [("stdout/stderr", text) for text in outputs]
        self.assertGreater(len(texts), 15)
        for where, text in texts:
            for fragment in fragments(KEY):
                self.assertNotIn(fragment, text, where)

    def test_key_with_an_inner_newline_is_one_line_without_the_value(self):
        server = self.server()
        registry = self.registry(server, requires_api_key=True, api_key_env="ECHO_KEY")
        env = dict(os.environ, ECHO_KEY=KEY[:10] + "\n" + KEY[10:])
        result = run_process("run", "--registry", registry, "--model", "local", "--output",
                             self.path("runs"), "--limit", "2", env=env)
        self.assertEqual(result.code, 2, result)
        self.assertEqual(len(result.err.strip().splitlines()), 1, result)
        self.assertIn("ECHO_KEY", result.err)
        self.assertNotIn("Traceback", result.err)
        for fragment in fragments(KEY, 6):
            self.assertNotIn(fragment, result.err)
        self.assertEqual(server.requests, [])
        self.assertFalse(os.path.exists(self.path("runs")))


    def test_a_key_too_short_to_redact_is_said_to_be_so(self):
        server = self.server()
        server.rule = lambda body, index: Reply(200, chat_success("85", model="local-model"))
        registry = self.registry(server, requires_api_key=True, api_key_env="ECHO_KEY")
        warning = ("the key in ECHO_KEY is shorter than 8 characters: too short to tell from "
                   "ordinary text, it is not redacted from what a server echoes back")
        for key, expected in (("EMPTY", [warning]), ("EMPTY-KEY", [])):
            run_id = f"k{len(key)}"
            result = run_process("run", "--registry", registry, "--model", "local", "--output",
                                 self.path("runs"), "--run-id", run_id, "--limit", "2",
                                 "--bootstrap", "0", "--quiet", env=dict(os.environ,
                                                                       ECHO_KEY=key))
            self.assertEqual(result.code, 0, result)
            folder = self.path("runs", run_id)
            with open(os.path.join(folder, "manifest.json"), encoding="utf-8") as handle:
                self.assertEqual([w for w in json.load(handle)["warnings"] if "ECHO_KEY" in w],
                                 expected)
            with open(os.path.join(folder, "summary.json"), encoding="utf-8") as handle:
                self.assertEqual(warning in json.load(handle)["warnings"], bool(expected))


class TamperTest(HardeningCase):
    """Hole 2: editing a file and refreshing its catalog entry is caught."""

    def rewrite_records(self, folder, change):
        path = os.path.join(folder, "records.jsonl")
        records = self.records(folder)
        change(records)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join(ehq_ref.canonical_json(r) + "\n" for r in records))

    def assert_caught(self, folder, phrase):
        ehq_ref.write_catalog(folder)  # the attacker refreshes the catalog
        report = ehq_ref.verify_run(folder)
        self.assertFalse(report["valid"])
        self.assertEqual(report["mismatched"], [])
        self.assertTrue(any(phrase in c for c in report["contradictions"]),
                        report["contradictions"])
        result = run_cli("verify-run", folder)
        self.assertEqual(result.code, 1)
        self.assertIn("contradictions", result.err)

    def test_untouched_run_verifies_with_its_attestations(self):
        report = ehq_ref.verify_run(self.offline_run())
        self.assertTrue(report["valid"], report)
        files = len(ehq_ref.run_files(self.path("runs", "r"))) - 1  # all but events.jsonl
        self.assertEqual(report["attested"], [f"{files} file(s)", "response texts"])
        self.assertEqual(report["contradictions"], [])

    def test_edited_summary_with_refreshed_catalog(self):
        folder = self.offline_run()
        path = os.path.join(folder, "summary.json")
        summary = ehq_ref.load_json_file(path)
        summary["models"][0]["EHQ"] = 0.99
        ehq_ref.write_json(path, summary)
        self.assert_caught(folder, "summary.json does not hash to the SHA-256 the event chain")

    def test_edited_reports_and_manifest_with_refreshed_catalog(self):
        for name in ("report.md", "report.html", "summary.csv", "manifest.json",
                     "figures/reliability.svg"):
            with self.subTest(name=name):
                shutil.rmtree(self.path("runs"), True)
                folder = self.offline_run()
                with open(os.path.join(folder, name), "a", encoding="utf-8") as handle:
                    handle.write("\n")
                self.assert_caught(folder, f"{name} does not hash to the SHA-256")

    def test_an_answer_copied_from_another_epoch_is_caught(self):
        folder = self.offline_run("r", "--epochs", "2")

        def copy(records):
            first, second = records[0], records[1]
            self.assertEqual((first["epoch"], second["epoch"]), (0, 1))
            second.update(answer_text=first["answer_text"],
                          confidence_text=first["confidence_text"])

        before = self.records(folder)
        if before[0]["answer_text"] == before[1]["answer_text"]:
            self.skipTest("the two epochs answered alike")
        self.rewrite_records(folder, copy)
        self.assert_caught(folder, "line 2: the answer text is not the response the event "
                                   "chain recorded for offline on")

    def test_edited_answer_text_with_refreshed_catalog(self):
        folder = self.offline_run()
        self.rewrite_records(folder, lambda rs: rs[5].update(answer_text="Paris, surely."))
        self.assert_caught(folder, "records.jsonl: line 6: the answer text is not the response")

    def test_removed_record_with_refreshed_catalog(self):
        folder = self.offline_run()
        self.rewrite_records(folder, lambda rs: rs.pop())
        self.assert_caught(folder, "records.jsonl holds 39 records; the event chain recorded 40")

    def test_edited_confidence_text_with_refreshed_catalog(self):
        folder = self.offline_run()
        self.rewrite_records(folder, lambda rs: rs[0].update(confidence_text="99"))
        self.assert_caught(folder, "line 1: the confidence text is not the response")

    def test_merged_run_attests_its_files(self):
        for k in (1, 2):
            self.offline_run(f"s{k}", "--shard", f"{k}/2")
        merged = self.path("merged")
        result = run_cli("merge", self.path("runs", "s1"), self.path("runs", "s2"), "--output",
                         merged)
        self.assertEqual(result.code, 0, result)
        self.assertTrue(ehq_ref.verify_run(merged)["valid"])
        self.rewrite_records(merged, lambda rs: rs[0].update(answer_text="edited"))
        ehq_ref.write_catalog(merged)
        self.assertFalse(ehq_ref.verify_run(merged)["valid"])


class OddReplyTest(HardeningCase):
    """Hole 3: one odd reply is a technical failure of its item; the run and a resume go on."""

    ODD = {
        "model_number": lambda text: dict(chat_success(text), model=12345),
        "model_list": lambda text: dict(chat_success(text), model=["a", "b"]),
        "message_string": lambda text: dict(chat_success(text), choices=[
            {"index": 0, "message": "just a string", "finish_reason": "stop"}]),
        "usage_string": lambda text: dict(chat_success(text), usage="lots"),
        "choices_number": lambda text: dict(chat_success(text), choices=7),
        "deep": lambda text: "[" * 100000 + "]" * 100000,
    }

    def test_each_odd_reply_fails_only_its_item_and_resume_finishes(self):
        server = self.server()
        items = ehq_ref.EXAMPLE_ITEMS
        answerable = [it for it in items if it["category"] == "HNQ"]
        plan = dict(zip((it["question"] for it in answerable), list(self.ODD) + ["big_number",
                                                                                 "retry_nan"]))
        retried = set()

        def rule(body, index):
            prompt = body["messages"][-1]["content"]
            confidence = "confidence" in body["messages"][0]["content"].lower()
            odd = next((name for question, name in plan.items() if question in prompt), None)
            if odd == "big_number" and confidence:
                return Reply(200, chat_success("9" * 5000))
            if odd == "retry_nan" and odd not in retried:
                retried.add(odd)
                return Reply(429, {"error": {"message": "slow down"}},
                             headers={"retry-after": "nan", "retry-after-ms": "-5"})
            if odd in self.ODD and not confidence:
                return Reply(200, self.ODD[odd]("It is Paris."))
            return None

        server.rule = rule
        options = self.options(registry=self.registry(server), models=["local"],
                               categories=["HNQ"])
        result = ehq_ref.run_evaluation(options, clock=FakeClock())  # backoff in virtual time
        records = {r["question_id"]: r for r in self.records(result["run_dir"])}
        by_odd = {name: records[it["question_id"]] for it in answerable
                  for question, name in plan.items() if it["question"] == question}
        for name in self.ODD:
            record = by_odd[name]
            self.assertEqual(record["exclusion_reason"], "response_format", name)
            self.assertIsNone(record["classification"], name)
        big = by_odd["big_number"]
        self.assertEqual((big["parsed_confidence"], big["confidence_terminal"]), (None, True))
        self.assertEqual(big["confidence_readings"]["ehq-1.1.4"]["reason"], "out_of_range")
        self.assertTrue(by_odd["retry_nan"]["valid_for_ehq3"])
        self.assertEqual(len(records), len(answerable))
        resumed = ehq_ref.run_evaluation(  # asks the odd items again
            ehq_ref.dataclasses.replace(options, resume=True), clock=FakeClock())
        self.assertEqual(len(self.records(resumed["run_dir"])), len(answerable))
        self.assertTrue(ehq_ref.verify_run(resumed["run_dir"])["valid"])

    def test_an_exception_inside_one_unit_is_an_internal_error_record(self):
        real = ehq_ref.classify_all
        broken = [it for it in ehq_ref.EXAMPLE_ITEMS if it["category"] == "HNQ"][1]["question_id"]

        def classify(answer, item):
            if item["question_id"] == broken:
                raise ValueError("a classifier fault")
            return real(answer, item)

        with mock.patch.object(ehq_ref, "classify_all", classify):
            result = ehq_ref.run_evaluation(self.options())
        records = {r["question_id"]: r for r in self.records(result["run_dir"])}
        self.assertEqual(records[broken]["exclusion_reason"], "internal_error")
        self.assertEqual(records[broken]["internal_error"], "ValueError: a classifier fault")
        self.assertEqual(len(records), len(ehq_ref.EXAMPLE_ITEMS))
        self.assertFalse(ehq_ref.record_is_final(records[broken]))
        with open(os.path.join(result["run_dir"], "events.jsonl"), encoding="utf-8") as handle:
            events = [json.loads(line) for line in handle]
        self.assertEqual([e["question_id"] for e in events if e["event"] == "internal_error"],
                         [broken])

    def test_retry_after_values_that_are_not_a_duration_are_ignored(self):
        for headers in ({"retry-after": "nan"}, {"retry-after": "inf"},
                        {"retry-after": "-3"}, {"retry-after-ms": "nan"},
                        {"retry-after": "Mon, 99 Foo 2026"}):
            self.assertIsNone(ehq_ref.parse_retry_after(headers, 0.0), headers)
        self.assertEqual(ehq_ref.parse_retry_after({"retry-after-ms": "nan",
                                                    "retry-after": "2"}, 0.0), 2.0)
        self.assertIsNone(ehq_ref.body_retry_hint(
            {"error": {"message": "Please try again in " + "9" * 400 + "s"}}))

    def test_a_5000_digit_confidence_is_out_of_range_for_every_classifier(self):
        for text in ("9" * 5000, "Confidence: " + "1" * 5000 + " percent"):
            readings = ehq_ref.read_all_confidences(text, "percent", "Paris")
            self.assertEqual({name: (r["value"], r["reason"]) for name, r in readings.items()},
                             {"ehq-1.1.4": (None, "out_of_range"),
                              "ehq_ref-1": (None, "out_of_range"),
                              "ehq_ref-2": (None, "out_of_range")}, text[:20])
        padded = ehq_ref.read_all_confidences("0" * 4990 + "85", "percent", "Paris")
        self.assertEqual(padded["ehq-1.1.4"]["value"], 0.85)  # frozen: leading zeros were read
        self.assertEqual(ehq_ref.read_all_confidences("0085", "percent", "P")["ehq-1.1.4"],
                         {"value": 0.85, "strategy": "single_integer_in_text", "reason": None})


class SymlinkTest(HardeningCase):
    """Hole 4: a link planted in a run directory is refused on resume and fails verify-run."""

    def test_planted_records_link_is_not_written_through(self):
        folder = self.offline_run()
        outside = self.write("outside.jsonl", "")
        os.remove(os.path.join(folder, "records.jsonl"))
        os.symlink(outside, os.path.join(folder, "records.jsonl"))
        result = run_cli("run", "--output", self.path("runs"), "--resume", "r", "--quiet")
        self.assertEqual(result.code, 2, result)
        self.assertIn("records.jsonl is a symbolic link", result.err)
        self.assertEqual(os.path.getsize(outside), 0)
        report = ehq_ref.verify_run(folder)
        self.assertEqual((report["valid"], report["symlinks"]), (False, ["records.jsonl"]))

    def test_planted_folder_link_is_refused(self):
        folder = self.offline_run()
        os.makedirs(self.path("elsewhere"))
        shutil.rmtree(os.path.join(folder, "figures"))
        os.symlink(self.path("elsewhere"), os.path.join(folder, "figures"))
        result = run_cli("run", "--output", self.path("runs"), "--resume", "r", "--quiet")
        self.assertEqual(result.code, 2, result)
        self.assertEqual(os.listdir(self.path("elsewhere")), [])
        self.assertIn("figures", ehq_ref.verify_run(folder)["symlinks"])

    def test_appending_open_refuses_a_link(self):
        target = self.write("target.txt", "kept")
        os.symlink(target, self.path("link.txt"))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.open_appending(self.path("link.txt"))
        self.assertIn("symbolic link", str(caught.exception))
        with open(target, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), "kept")


class FlagsUpFrontTest(HardeningCase):
    """Hole 5: a bad number-changing or limit flag is refused before any directory or request."""

    def test_every_bad_flag_is_refused_before_anything_happens(self):
        server = self.server()
        registry = self.registry(server)
        cases = [("--risk", "2"), ("--risk", "nan"), ("--n-bins", "1"), ("--confidence", "0"),
                 ("--bootstrap", "-1"), ("--rpm", "-5"), ("--tpm", "-1"),
                 ("--max-retries", "-1"), ("--max-retry-wait", "-1"), ("--tolerance", "-1"),
                 ("--max-failure-rate", "-0.5"), ("--max-failure-rate", "inf"),
                 ("--compare", "local,nobody"), ("--weights", "0.5,0.5,nan")]
        for flag, value in cases:
            with self.subTest(flag=flag, value=value):
                result = run_cli("run", "--registry", registry, "--model", "local", "--output",
                                 self.path("runs"), "--run-id", "x", "--quiet", flag, value)
                self.assertEqual(result.code, 2, result)
                self.assertEqual(len(result.err.strip().splitlines()), 1, result)
                self.assertFalse(os.path.exists(self.path("runs", "x")))
        self.assertEqual(server.requests, [])


class TempFileTest(HardeningCase):
    """Hole 6: temp files left by a kill are neither catalogued nor kept by a resume."""

    def test_stale_temp_files_are_removed_and_never_catalogued(self):
        folder = self.offline_run()
        stale = os.path.join(folder, ".summary.json.abc123.tmp")
        with open(stale, "w", encoding="utf-8") as handle:
            handle.write("{")
        self.assertNotIn(".summary.json.abc123.tmp", ehq_ref.run_files(folder))
        report = ehq_ref.verify_run(folder)  # a finished run holds no temp file
        self.assertFalse(report["valid"])
        self.assertIn(".summary.json.abc123.tmp was written after the run finished",
                      report["contradictions"][0])
        result = run_cli("run", "--output", self.path("runs"), "--resume", "r", "--quiet")
        self.assertEqual(result.code, 0, result)
        self.assertFalse(os.path.exists(stale))
        catalog = ehq_ref.load_json_file(os.path.join(folder, "artifact_catalog.json"))
        self.assertFalse([p for p in catalog["artifacts"] if p.endswith(".tmp")])


class BadFileTest(HardeningCase):
    """Hole 7: each bad file the pass found is one line naming the file, exit 2."""

    def assert_refused(self, args, name, phrase):
        result = run_cli(*args)
        self.assertEqual(result.code, 2, result)
        lines = result.err.strip().splitlines()
        self.assertEqual(len(lines), 1, result)
        self.assertIn(name, lines[0])
        self.assertIn(phrase, lines[0])

    def test_huge_integers_floats_and_depth(self):
        score = ehq_ref.load_json_file(os.path.join(EXAMPLES, "score.json"))
        for value, phrase in (("9" * 5000, "digits"), ("1e400", "out of range"),
                              ("1" + "0" * 400, "digits")):
            text = json.dumps(score).replace('"r": 0.91', f'"r": {value}')
            self.assert_refused(("score", self.write("s.json", text)), "s.json", phrase)
        deep = self.write("deep.json", "[" * 100000 + "]" * 100000)
        self.assert_refused(("validate", deep), "deep.json", "nested too deeply")
        self.assert_refused(("sweep", self.write("w.json", '{"scores": {"1": 1e400}}')),
                            "w.json", "out of range")

    def test_long_csv_cell_reads_like_json(self):
        question = "What is " + "very " * 40000 + "odd?"
        path = self.write("long.csv", f"id,question,gold,unknown_ok,category\n"
                                      f"q1,{question},Paris,0,HNQ\n")
        items = ehq_ref.load_csv_items(path)
        self.assertEqual(items[0]["question"], question)

    def test_lone_surrogate_and_escaped_backslash(self):
        self.assert_refused(("validate", self.write("s.json", '[{"question_id": "\\ud800"}]')),
                            "s.json", "surrogate")
        self.assertEqual(ehq_ref.loads_strict('"\\\\ud800"'), "\\ud800")  # text, not a half

    def test_run_directory_files(self):
        folder = self.offline_run()
        catalog = os.path.join(folder, "artifact_catalog.json")
        document = ehq_ref.load_json_file(catalog)
        first = sorted(document["artifacts"])[0]
        document["artifacts"][first] = "x"
        ehq_ref.write_json(catalog, document)
        self.assert_refused(("verify-run", folder), "artifact_catalog.json",
                            f"$.artifacts[\"{first}\"]: expected an object")
        ehq_ref.write_catalog(folder)
        with open(os.path.join(folder, "records.jsonl"), "a", encoding="utf-8") as handle:
            handle.write("[1, 2]\n")
        self.assert_refused(("run", "--output", self.path("runs"), "--resume", "r"),
                            "records.jsonl: line 41", "expected an object, got [1, 2]")
        with open(os.path.join(folder, "manifest.json"), "w", encoding="utf-8") as handle:
            handle.write("7")
        for command in (("status", folder), ("run", "--output", self.path("runs"),
                                             "--resume", "r")):
            self.assert_refused(command, "manifest.json", "expected an object, got 7")

    def test_runner_record_with_a_string_classification(self):
        folder = self.offline_run()
        path = os.path.join(folder, "records.jsonl")
        records = self.records(folder)
        records[2]["classification"] = "CONFIDENT_CORRECT"
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(r) + "\n" for r in records))
        self.assert_refused(("score", path), "records.jsonl: line 3: $.classification",
                            "expected null or an object")

    def test_event_budgets_false(self):
        event = ehq_ref.load_json_file(os.path.join(EXAMPLES, "event.json"))
        event["budgets"] = False
        path = self.write("e.json", json.dumps(event))
        self.assert_refused(("log", path, "--output", self.path("l.jsonl")), "e.json",
                            "$.budgets: expected an object, got false")

    def test_registry_header_and_base_urls(self):
        base = {"name": "x", "provider": "openai_compatible", "provider_model": "m",
                "requires_api_key": False}
        for change, phrase in (({"headers": {"X-Team": "a\nb"}}, "headers"),
                               ({"base_url": "ftp://example.com/v1"}, "base_url"),
                               ({"base_url": "example.com/v1"}, "base_url"),
                               ({"base_url": "http://"}, "base_url")):
            path = self.write("m.json", json.dumps({"models": [dict(base, **change)]}))
            self.assert_refused(("run", "--registry", path, "--model", "x", "--output",
                                 self.path("runs")), "m.json", phrase)


class BooleanMetricTest(HardeningCase):
    """Hole 8: a boolean metric in a gate baseline is refused, not read as 1.0."""

    def test_boolean_metric_is_refused(self):
        folder = self.offline_run()
        baseline = self.write("b.json", json.dumps({"metrics": {"EHQ": True}}))
        result = run_cli("gate", folder, "--baseline", baseline)
        self.assertEqual(result.code, 2, result)
        self.assertIn("b.json: $.metrics.EHQ", result.err)


class ErrorPlaceTest(HardeningCase):
    """Hole 9: every error names the file and the place."""

    def test_gate_baseline_errors_name_the_file(self):
        folder = self.offline_run()
        for text, place in (('{"kind": "ehq_ref-gate", "models": {"m": 3}}', "$.models.m"),
                            ('{"models": {"m": {"EHQ": "high"}}}', "$.models.m.EHQ"),
                            ("[1]", "$")):
            baseline = self.write("b.json", text)
            result = run_cli("gate", folder, "--baseline", baseline)
            self.assertEqual(result.code, 2, result)
            self.assertTrue(result.err.startswith(f"ehq_ref: {baseline}: {place}"), result)

    def test_empty_selection_names_the_item_file(self):
        path = self.write("empty.json", "[]")
        result = run_cli("run", "--items", path, "--output", self.path("runs"))
        self.assertEqual(result.code, 2)
        self.assertIn(f"{path}: the selection is empty", result.err)

    def test_full_disk_names_the_file(self):
        full = OSError(errno.ENOSPC, "No space left on device")
        with mock.patch.object(ehq_ref.os, "fsync", side_effect=full):
            result = run_cli("run", "--output", self.path("runs"), "--run-id", "d", "--quiet")
        self.assertEqual(result.code, 2, result)
        self.assertIn(self.path("runs", "d"), result.err)
        self.assertIn("No space left on device", result.err)
        self.assertEqual(len(result.err.strip().splitlines()), 1, result)


class LockTest(HardeningCase):
    """Hole 10: the lock is the directory itself, so no lock file can be unlinked while held."""

    def test_directory_lock_excludes_and_leaves_no_file(self):
        folder = self.path("runs", "held")
        os.makedirs(folder)
        with ehq_ref.RunLock(folder):
            self.assertTrue(ehq_ref.is_locked(folder))
            with self.assertRaises(ehq_ref.InputError):
                with ehq_ref.RunLock(folder):
                    pass
        self.assertFalse(ehq_ref.is_locked(folder))
        self.assertEqual(os.listdir(folder), [])
        finished = self.offline_run()
        self.assertNotIn(".lock", os.listdir(finished))


if __name__ == "__main__":
    unittest.main()


class ReviewFindingsTest(HardeningCase):
    """Faults a review of the hardening and epoch work found, each fixed at its root."""

    def test_replies_with_a_lone_surrogate_or_nan_fail_only_their_item(self):
        server = self.server()

        def rule(body, index):
            prompt = body["messages"][-1]["content"]
            if "Which country" in prompt or index % 7 == 1:
                return Reply(400, '{"error": {"message": "bad \\ud800 thing"}}')
            if index % 7 == 3:
                return Reply(200, '{"choices": [{"message": {"content": "Paris"}, '
                                  '"finish_reason": "stop"}], "system_fingerprint": NaN}')
            return None

        server.rule = rule
        options = self.options(registry=self.registry(server), models=["local"],
                               categories=["HNQ"], use_cache=True)
        result = ehq_ref.run_evaluation(options, clock=FakeClock())
        records = self.records(result["run_dir"])
        reasons = {r["exclusion_reason"] for r in records}
        self.assertIn("http", reasons)  # the 400 with a half surrogate in its message
        self.assertNotIn("internal_error", reasons)
        with open(os.path.join(result["run_dir"], "events.jsonl"), encoding="utf-8") as handle:
            retries = [json.loads(line) for line in handle if '"retry"' in line]
        self.assertIn("response_format", {e["reason"] for e in retries})  # the NaN reply
        self.assertTrue(ehq_ref.verify_run(result["run_dir"])["valid"])
        self.assertIsNone(ehq_ref.read_reply_body(b'{"a": "\\ud800"}'))
        self.assertIsNone(ehq_ref.read_reply_body(b'{"a": Infinity}'))
        self.assertEqual(ehq_ref.read_reply_body(b'{"a": "\\\\ud800"}'), {"a": "\\ud800"})
        deep = b'{"s": "' + b"]" * 1000 + b'", "x": ' + b"[" * 100 + b"]" * 100 + b"}"
        self.assertIsNone(ehq_ref.read_reply_body(deep))  # brackets in strings do not hide depth
        self.assertEqual(ehq_ref.json_depth({"a": [[1], {"b": []}]}), 4)

    def test_the_identity_probe_never_writes_a_key(self):
        server = self.server()
        server.rule = lambda body, index: Reply(200, chat_success(
            "OK", model=body["model"] if body["model"] != ehq_ref.IDENTITY_PROBE_MODEL
            else f"echo {KEY}"))
        registry = self.registry(server, requires_api_key=True, api_key_env="ECHO_KEY",
                                 model_identity_policy="strict")
        env = dict(os.environ, ECHO_KEY=KEY)
        run = run_process("run", "--registry", registry, "--model", "local", "--limit", "2",
                          "--output", self.path("runs"), "--run-id", "r", "--no-cache",
                          "--quiet", env=env)
        check = run_process("routes", "--registry", registry, "--model", "local", "--check",
                            env=env)
        manifest = ehq_ref.load_json_file(self.path("runs", "r", "manifest.json"))
        self.assertIn("the server named 'echo [REDACTED]'",
                      manifest["identity_checks"]["local"]["identity_note"])
        for where, text in tree_text(self.path("runs")) + [("out", run.out + run.err),
                                                          ("check", check.out + check.err)]:
            for fragment in fragments(KEY):
                self.assertNotIn(fragment, text, where)

    def test_epoch_records_and_plain_records_score_together(self):
        folder = self.offline_run("e", "--epochs", "2")
        plain = self.offline_run("p")
        mixed = self.path("mixed.jsonl")
        with open(mixed, "w", encoding="utf-8") as handle:
            for record in self.records(folder):
                handle.write(json.dumps(record) + "\n")
            for record in self.records(plain):
                handle.write(json.dumps(dict(record, model="other")) + "\n")
        result = run_cli("score", mixed, "--compare", "offline,other", "--bootstrap", "200")
        self.assertEqual(result.code, 0, result)
        comparison = result.json()["ehq"]["comparisons"][0]["difference"]["EHQ"]
        self.assertLessEqual(comparison["low"], comparison["high"])

    def test_manifest_fields_read_back_are_checked(self):
        folder = self.offline_run()
        path = os.path.join(folder, "manifest.json")
        original = ehq_ref.load_json_file(path)
        for change, place in ((lambda m: m["run"]["fingerprint_inputs"].update(epochs="2"),
                               "$.run.fingerprint_inputs.epochs"),
                              (lambda m: m["selection"].pop("categories"),
                               "$.selection.categories"),
                              (lambda m: m["dataset"].update(path=5), "$.dataset.path"),
                              (lambda m: m["registry"].pop("path"), "$.registry.path")):
            manifest = json.loads(json.dumps(original))
            change(manifest)
            ehq_ref.write_json(path, manifest)
            for command in (("status", folder), ("run", "--output", self.path("runs"),
                                                 "--resume", "r")):
                result = run_cli(*command)
                self.assertEqual(result.code, 2, result)
                self.assertIn(f"manifest.json: {place}", result.err)

    def test_adjudication_of_epoch_records_is_refused(self):
        folder = self.offline_run("e", "--epochs", "2")
        adjudication = self.write("adj.json", json.dumps({"offline::HNQ-GEO-001": "ABSTAIN"}))
        result = run_cli("score", os.path.join(folder, "records.jsonl"), "--adjudication",
                         adjudication)
        self.assertEqual(result.code, 2, result)
        self.assertIn("several per item", result.err)

    def test_a_malformed_record_is_a_finding_of_verify_run(self):
        folder = self.offline_run()
        path = os.path.join(folder, "records.jsonl")
        records = self.records(folder)
        records[0]["k"] = 7
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("".join(json.dumps(r) + "\n" for r in records))
        ehq_ref.write_catalog(folder)
        result = run_cli("verify-run", folder)
        self.assertEqual(result.code, 1, result)
        self.assertIn("records.jsonl: line 1: $.k: expected 0 or 1", result.out)
