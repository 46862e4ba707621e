"""The runner: run directories, resume after SIGKILL, cache, progress, verification, sharding, study
set-up."""

import dataclasses
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
import unittest

from fake_provider import FakeProvider, Reply, chat_success
from support import EXAMPLES, KIT, TempDirTestCase, ehq_ref, run_cli, run_process
from test_cli import tree

CANARY = "sk-canary-runner-91c4e7a2b6d3f0"
QUESTIONS = {item["question"]: item["question_id"] for item in ehq_ref.EXAMPLE_ITEMS}


def item_of(body):
    """The example item a request body is about (its question appears in the prompt)."""
    prompt = body["messages"][-1]["content"]
    matches = [qid for question, qid in QUESTIONS.items() if question in prompt]
    return matches[0] if matches else None


def deterministic_model(body):
    """A fake model whose reply depends only on the prompt: every label and a bad confidence
    occur."""
    prompt = body["messages"][-1]["content"]
    digest = int(hashlib.sha256(prompt.encode()).hexdigest(), 16)
    if "confidence" in body["messages"][0]["content"]:
        return ["85", "40", "0", "seventy"][digest % 4]
    return ["I don't know.", "I think it is Paris.", "The answer is Mikhail Bulgakov.",
            "It was Marta Kovalenko in 1961."][digest % 4]


class RunnerCase(TempDirTestCase):
    def setUp(self):
        super().setUp()
        self.cache = self.path("cache")

    def registry(self, server, **route):
        entry = dict(name="local", provider="openai_compatible", provider_model="local-model",
                     base_url=server.base_url, requires_api_key=False, read_timeout=5.0)
        entry.update(route)
        return self.write("models.json", json.dumps({"models": [entry]}))

    def options(self, **changes):
        fields = dict(output=self.path("runs"), run_id="r", progress="quiet", cache_dir=self.cache,
                      bootstrap=100, env_file=None, reproducible=True)
        fields.update(changes)
        return ehq_ref.RunOptions(**fields)

    def records(self, folder):
        with open(os.path.join(folder, "records.jsonl")) as handle:
            return [json.loads(line) for line in handle]

    def read(self, *parts):
        with open(os.path.join(*parts), "rb") as handle:
            return handle.read()


class OfflineRunTest(RunnerCase):
    def test_default_offline_run(self):
        result = ehq_ref.run_evaluation(self.options())
        folder = result["run_dir"]
        self.assertEqual(sorted(os.listdir(folder)),
                         sorted(ehq_ref.RUN_LAYOUT + (ehq_ref.CATALOG, )))
        records = self.records(folder)
        self.assertEqual(len(records), 40)
        labels = {r["classification"]["label"] for r in records if r["classification"]}
        self.assertEqual(labels, set(ehq_ref.LABELS))
        excluded = [r["question_id"] for r in records if r["k"]]
        self.assertEqual(excluded,
                         ["PCQ-ECO-002", "PCQ-POL-002"])  # events before the simulated cutoff
        self.assertEqual({r["exclusion_reason"]
                          for r in records if r["k"]}, {"pcq_event_not_after_cutoff"})
        summary = result["summary"]
        self.assertTrue(summary["simulated"])
        self.assertIsNotNone(summary["models"][0]["EHQ"])
        self.assertEqual(result["exit_code"], 0)
        self.assertTrue(ehq_ref.verify_run(folder)["valid"])
        self.assertEqual(ehq_ref.run_status(folder)["status"], "completed_verified")

    def test_reproducible_runs_are_byte_identical(self):
        first = ehq_ref.run_evaluation(self.options(output=self.path("a"),
                                                    targets=(0.5, 0.9)))["run_dir"]
        second = ehq_ref.run_evaluation(self.options(output=self.path("b"),
                                                     targets=(0.5, 0.9)))["run_dir"]
        one, two = tree(first), tree(second)
        self.assertEqual(sorted(one), sorted(two))
        self.assertIn("figures/targets.svg", one)
        for name in one:
            self.assertEqual(one[name], two[name], name)

    def test_records_score_unchanged_with_the_score_command(self):
        folder = ehq_ref.run_evaluation(self.options())["run_dir"]
        scored = run_cli("score", os.path.join(folder, "records.jsonl"), "--bootstrap", 0).json()
        summary = json.loads(self.read(folder, "summary.json"))
        self.assertEqual(scored["ehq"]["scores"]["offline"]["overall"]["EHQ"],
                         summary["models"][0]["EHQ"])
        alternative = ehq_ref.ehq_scores(self.records(folder), samples=0, labels="ehq_ref-1")
        self.assertEqual(alternative["models"]["offline"]["overall"]["EHQ"],
                         summary["classifier_sensitivity"]["offline"]["EHQ"]["ehq_ref-1"]["EHQ"])
        self.assertGreater(summary["classifier_sensitivity"]["offline"]["n_differ"], 0)
        self.assertEqual(scored["ehq"]["classifier_sensitivity"], summary["classifier_sensitivity"])

    def test_examples_file_is_the_embedded_set(self):
        with open(os.path.join(EXAMPLES, "items.json"), "rb") as handle:
            self.assertEqual(handle.read(), ehq_ref.example_items_bytes())

    def test_limit_category_and_shard_selection(self):
        result = ehq_ref.run_evaluation(self.options(limit=8, categories="HNQ,FEQ"))
        records = self.records(result["run_dir"])
        self.assertEqual(len(records), 8)
        self.assertEqual({r["category"] for r in records}, {"HNQ", "FEQ"})

    def test_run_directory_exists_without_resume(self):
        ehq_ref.run_evaluation(self.options())
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options())
        self.assertIn("already exists; use --resume", str(caught.exception))

    def test_resume_refuses_changed_inputs_but_not_settings(self):
        ehq_ref.run_evaluation(self.options(limit=10))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(limit=10, classifier="ehq_ref-1", resume=True))
        self.assertIn("refusing to resume: classifier changed", str(caught.exception))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(limit=12, resume=True))
        self.assertIn("selection_sha256 changed", str(caught.exception))
        result = ehq_ref.run_evaluation(
            self.options(limit=10, resume=True, concurrency=4, max_retries=2, rpm=1000))
        self.assertEqual(len(self.records(result["run_dir"])), 10)

    def test_scoring_flags_reach_the_summary(self):
        registry = self.write("m.json", json.dumps([{"name": "twin", "provider": "offline",
                                                     "provider_model": "offline-simulated-1"}]))
        result = run_cli("run", "--output", self.path("runs"), "--run-id", "f", "--quiet",
                         "--models", "offline,twin", "--registry", registry, "--closed", "right",
                         "--n-bins", 15, "--bootstrap", 30, "--confidence", 0.9, "--compare",
                         "offline,twin", "--json")
        self.assertEqual(result.code, 0, result.err)
        summary = result.json()["summary"]
        self.assertEqual((summary["settings"]["closed"], summary["settings"]["n_bins"],
                          summary["settings"]["confidence"]), ("right", 15, 0.9))
        self.assertEqual(summary["scores"]["offline"]["overall"]["calibration"]["n_bins"], 15)
        self.assertEqual(summary["comparisons"][0]["models"], ["offline", "twin"])

    def test_unknown_model_and_reasoning_guard(self):
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(models=("nope",)))
        self.assertIn("unknown model 'nope'; registered: offline", str(caught.exception))
        registry = self.write(
            "m.json",
            json.dumps([{
                "name": "thinker", "provider": "openai_compatible", "provider_model": "m",
                "base_url": "http://127.0.0.1:9/v1", "reasoning_mode": "enabled"
            }]))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(models=("thinker",), registry=registry))
        self.assertIn("--allow-reasoning", str(caught.exception))

    def test_adjudication_relabels_and_updates_correctness(self):
        folder = ehq_ref.run_evaluation(self.options())["run_dir"]
        before = json.loads(self.read(folder, "summary.json"))
        wrong = next(r for r in self.records(folder) if r["classification"] and
                     r["classification"]["label"] == "CONFIDENT_WRONG" and r["valid_for_ehq3"])
        table = self.write(
            "adj.json",
            json.dumps({
                "adjudications": [{
                    "model": "offline", "question_id": wrong["question_id"],
                    "label": "CONFIDENT_CORRECT"
                }]
            }))
        result = ehq_ref.run_evaluation(self.options(resume=True, adjudication=table))
        record = next(r for r in self.records(result["run_dir"])
                      if r["question_id"] == wrong["question_id"])
        self.assertEqual(
            (record["classification"]["label"], record["classification"]["automated_label"],
             record["classification"]["is_correct"]),
            ("CONFIDENT_CORRECT", "CONFIDENT_WRONG", True))
        self.assertEqual(result["summary"]["adjudication"]["n_labels"], 1)
        self.assertAlmostEqual(result["summary"]["models"][0]["EHQ2"] - before["models"][0]["EHQ2"],
                               1 / 38, delta=1e-12)
        bad = self.write("bad.json", json.dumps({"offline::NOPE-1": "ABSTAIN"}))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(resume=True, adjudication=bad))
        self.assertIn("which this run does not have", str(caught.exception))


class ProviderRunTest(RunnerCase):
    def setUp(self):
        super().setUp()
        self.server = FakeProvider("chat", responder=deterministic_model)
        self.addCleanup(self.server.close)

    def test_run_against_a_local_server_with_faults(self):
        truncated = "Which river flows through the centre of Ljubljana?"

        def rule(body, index):
            if truncated in body["messages"][-1]["content"]:
                return Reply(200, chat_success("The Ljub", finish="length"))
            if index in (3, 7):
                return Reply(503, {"error": {"message": "busy"}}, {"retry-after": "0.01"})
            return None

        self.server.rule = rule
        result = ehq_ref.run_evaluation(  # the published reader: "seventy" is no confidence
            self.options(models=("local", ), registry=self.registry(self.server),
                         classifier="ehq-1.1.4"))
        records = self.records(result["run_dir"])
        failed = [r for r in records if r["k"] == 0 and r["classification"] is None]
        self.assertEqual([(r["question_id"], r["exclusion_reason"]) for r in failed],
                         [("HNQ-GEO-001", "truncated")])
        self.assertIsNone(
            failed[0]["confidence_response"])  # no confidence request after a failed answer
        self.assertEqual(sum(1 for r in records if r["k"]), 10)  # PCQ: route not pcq_eligible
        terminal = [r for r in records if r["confidence_terminal"]]
        self.assertTrue(terminal and all(r["confidence_text"] == "seventy" for r in terminal))
        self.assertTrue(all(r["parsed_confidence"] is None for r in terminal))
        events = [
            json.loads(line) for line in self.read(result["run_dir"], "events.jsonl").splitlines()
        ]
        self.assertEqual(sum(1 for e in events if e["event"] == "retry"), 2)
        overall = result["summary"]["scores"]["local"]["overall"]
        self.assertEqual((overall["technical_failures"], overall["n_valid_ehq12"]), (1, 29))
        self.assertEqual(result["exit_code"], 0)  # 1/30 = 3.3% <= 5%
        strict = ehq_ref.run_evaluation(
            self.options(models=("local", ), registry=self.registry(self.server), run_id="strict",
                         max_failure_rate=0.02))
        self.assertEqual((strict["exit_code"], strict["failed_models"]), (1, ["local"]))

    def test_resume_redoes_only_retryable_failures(self):
        down = {"on": True}
        self.server.rule = lambda body, index: Reply(
            500, {"error": {"message": "down"}}, {"x-should-retry": "false"}) \
            if down["on"] and item_of(body) in ("HNQ-SPO-001", "FEQ-PER-002") else None
        options = self.options(models=("local", ), registry=self.registry(self.server),
                               use_cache=False)
        first = ehq_ref.run_evaluation(options)
        failed = sorted(r["question_id"] for r in self.records(first["run_dir"])
                        if r["k"] == 0 and not r["classification"])
        self.assertEqual(failed, ["FEQ-PER-002", "HNQ-SPO-001"])
        self.assertEqual(first["exit_code"], 1)
        down["on"] = False
        self.server.requests.clear()
        second = ehq_ref.run_evaluation(dataclasses_replace(options, resume=True))
        asked = sorted({item_of(r["body"]) for r in self.server.requests})
        self.assertEqual(asked, ["FEQ-PER-002", "HNQ-SPO-001"])
        self.assertEqual(second["exit_code"], 0)
        self.assertEqual(len(self.records(second["run_dir"])), 40)
        self.assertTrue(ehq_ref.verify_run(second["run_dir"])["valid"])

    def test_cache_serves_a_new_run_id_and_no_cache_does_not(self):
        registry = self.registry(self.server)
        ehq_ref.run_evaluation(self.options(models=("local",), registry=registry, run_id="one"))
        made = len(self.server.requests)
        self.assertEqual(made, 60)
        again = ehq_ref.run_evaluation(
            self.options(models=("local", ), registry=registry, run_id="two"))
        self.assertEqual(len(self.server.requests), made)  # everything from the cache
        self.assertEqual(again["summary"]["usage"]["local"]["cache_hits"], 60)
        ehq_ref.run_evaluation(
            self.options(models=("local", ), registry=registry, run_id="three", use_cache=False))
        self.assertEqual(len(self.server.requests), 2 * made)

    def test_corrupt_cache_entry_is_a_miss(self):
        registry = self.registry(self.server)
        ehq_ref.run_evaluation(
            self.options(models=("local", ), registry=registry, run_id="one", limit=4,
                         categories="HNQ"))
        entries = [
            os.path.join(base, name) for base, _, names in os.walk(self.cache) for name in names
        ]
        self.assertEqual(len(entries), 8)
        with open(entries[0], "w") as handle:
            handle.write('{"key": "x"')
        self.server.requests.clear()
        ehq_ref.run_evaluation(
            self.options(models=("local", ), registry=registry, run_id="two", limit=4,
                         categories="HNQ"))
        self.assertEqual(len(self.server.requests), 1)

    def test_missing_key_fails_before_any_request(self):
        registry = self.registry(self.server, requires_api_key=True,
                                 api_key_env="EHQ_TEST_ABSENT_KEY")
        result = run_cli("run", "--registry", registry, "--model", "local", "--output",
                         self.path("runs"), "--env-file", self.path("none.env"))
        self.assertEqual(result.code, 2)
        self.assertIn("missing API key: set EHQ_TEST_ABSENT_KEY (route local)", result.err)
        self.assertEqual(self.server.requests, [])

    def test_canary_key_appears_nowhere(self):
        echo = {
            "error": {
                "message": f"Incorrect API key provided: {CANARY}", "type": "invalid_request_error",
                "code": "invalid_api_key"
            }
        }
        self.server.rule = lambda body, index: Reply(401, echo) if index % 3 == 0 else None
        registry = self.registry(self.server, api_key_env="EHQ_CANARY_KEY", requires_api_key=True)
        env = dict(os.environ, EHQ_CANARY_KEY=CANARY, EHQ_REF_CACHE=self.cache)
        result = run_process("run", "--registry", registry, "--model", "local", "--output",
                             self.path("runs"), "--run-id", "c", "--json-events",
                             "--max-failure-rate", "1", cwd=self.tmp, env=env)
        self.assertEqual(result.code, 0, result.err)
        self.assertTrue(self.server.requests[0]["headers"]["authorization"].endswith(CANARY))
        self.assertNotIn(CANARY, result.out + result.err)
        for base, _, names in os.walk(self.tmp):
            for name in names:
                if name == "models.json":
                    continue
                self.assertNotIn(CANARY.encode(), self.read(base, name), os.path.join(base, name))
        records = self.records(self.path("runs", "c"))
        self.assertTrue(any(r.get("exclusion_reason") == "authentication" for r in records))


def dataclasses_replace(options, **changes):
    import dataclasses
    return dataclasses.replace(options, **changes)


class KillAndResumeTest(RunnerCase):
    """SIGKILL a real `run` subprocess at several points; --resume ends where an uninterrupted run
    ends."""

    def command(self, registry, output, *extra):
        return [
            sys.executable, KIT, "run", "--registry", registry, "--model", "local", "--output",
            output, "--run-id", "r", "--no-cache", "--reproducible", "--quiet", "--bootstrap",
            "100", "--env-file",
            self.path("none.env"), *extra
        ]

    def lines(self, path):
        try:
            with open(path, "rb") as handle:
                return [line for line in handle.read().split(b"\n")[:-1] if line]
        except FileNotFoundError:
            return []

    def test_sigkill_then_resume_matches_an_uninterrupted_run(self):
        server = FakeProvider("chat", latency=0.02, responder=deterministic_model)
        self.addCleanup(server.close)
        registry = self.registry(server)
        reference = subprocess.run(self.command(registry, self.path("reference")),
                                   capture_output=True, timeout=120)
        self.assertEqual(reference.returncode, 0, reference.stderr)
        records_path = self.path("killed", "r", "records.jsonl")
        recorded = set()
        for attempt, kill_at in enumerate((3, 12, 21, None)):
            first_request = len(server.requests)
            extra = ("--resume",) if attempt else ()
            process = subprocess.Popen(self.command(registry, self.path("killed"), *extra),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            if kill_at is None:
                self.assertEqual(process.wait(timeout=120), 0, process.stderr.read())
            else:
                deadline = time.monotonic() + 60
                while len(self.lines(records_path)) < kill_at and time.monotonic() < deadline:
                    time.sleep(0.005)
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
                self.assertEqual(run_cli("status", self.path("killed", "r")).json()["status"],
                                 "in_progress_or_interrupted")
            process.stderr.close()
            asked = {item_of(r["body"]) for r in server.requests[first_request:]}
            self.assertFalse(
                asked & recorded,
                f"recorded items asked again after kill {attempt}: {asked & recorded}")
            recorded = {json.loads(line)["question_id"] for line in self.lines(records_path)}
            if kill_at:
                self.assertGreaterEqual(len(recorded), kill_at)
        for name in ("records.jsonl", "summary.json", "summary.csv", "category_scores.csv",
                     "subcategory_scores.csv"):
            self.assertEqual(self.read(self.path("killed", "r"), name),
                             self.read(self.path("reference", "r"), name), name)
        self.assertTrue(ehq_ref.verify_run(self.path("killed", "r"))["valid"])

    def test_torn_last_record_is_detected_and_redone(self):
        folder = ehq_ref.run_evaluation(self.options(limit=6, categories="HNQ"))["run_dir"]
        with open(os.path.join(folder, "records.jsonl"), "rb") as handle:
            lines = handle.read().split(b"\n")[:-1]
        with open(os.path.join(folder, "records.jsonl"), "wb") as handle:
            handle.write(b"\n".join(lines[:4]) + b"\n" + lines[4][:50])
        os.remove(os.path.join(folder, ehq_ref.CATALOG))
        self.assertTrue(ehq_ref.run_status(folder)["torn_last_line"])
        result = ehq_ref.run_evaluation(self.options(limit=6, categories="HNQ", resume=True))
        with open(os.path.join(folder, "records.jsonl"), "rb") as handle:
            self.assertEqual(handle.read().split(b"\n")[:-1], lines)
        events = [json.loads(line) for line in self.read(folder, "events.jsonl").splitlines()]
        self.assertEqual([e["event"] for e in events if e["event"] == "torn_record_dropped"],
                         ["torn_record_dropped"])
        self.assertTrue(ehq_ref.verify_run(result["run_dir"])["valid"])


class ShardAndMergeTest(RunnerCase):
    def test_three_shards_merge_to_the_unsharded_summary(self):
        whole = ehq_ref.run_evaluation(self.options(output=self.path("whole")))["run_dir"]
        shards = []
        for k in (1, 2, 3):
            result = ehq_ref.run_evaluation(
                self.options(output=self.path("shards"), run_id=f"s{k}", shard=(k, 3)))
            shards.append(result["run_dir"])
        ids = [set(r["question_id"] for r in self.records(s)) for s in shards]
        self.assertEqual(sum(len(i) for i in ids), 40)
        self.assertFalse(ids[0] & ids[1] or ids[1] & ids[2] or ids[0] & ids[2])
        merged = self.path("merged")
        result = run_cli("merge", *shards, "--output", merged)
        self.assertEqual(result.code, 0, result.err)
        for name in ("summary.json", "records.jsonl", "summary.csv"):
            self.assertEqual(self.read(merged, name), self.read(whole, name), name)
        self.assertTrue(ehq_ref.verify_run(merged)["valid"])
        manifest = json.loads(self.read(merged, "manifest.json"))
        self.assertEqual(manifest["run"]["fingerprint"],
                         json.loads(self.read(whole, "manifest.json"))["run"]["fingerprint"])

    def test_merge_refuses_gaps_duplicates_and_strangers(self):
        shards = [
            ehq_ref.run_evaluation(self.options(output=self.path("s"), run_id=f"s{k}",
                                                shard=(k, 3)))["run_dir"] for k in (1, 2, 3)
        ]
        other = ehq_ref.run_evaluation(
            self.options(output=self.path("o"), run_id="o1", shard=(1, 3), seed=7))["run_dir"]
        for folders, message in [(shards[:2], "expected shards 1..3 exactly once"),
                                 (shards + [shards[0]], "expected shards 1..3 exactly once"),
                                 ([other] + shards[1:], "different fingerprints")]:
            result = run_cli("merge", *folders, "--output", self.path("m"))
            self.assertEqual(result.code, 2, folders)
            self.assertIn(message, result.err)


class VerifyRunTest(RunnerCase):
    def setUp(self):
        super().setUp()
        self.folder = ehq_ref.run_evaluation(self.options(limit=6))["run_dir"]

    def test_edited_record(self):
        path = os.path.join(self.folder, "records.jsonl")
        data = self.read(path).replace(b'"label":"ABSTAIN"', b'"label":"HEDGE"', 1)
        with open(path, "wb") as handle:
            handle.write(data)
        result = run_cli("verify-run", self.folder)
        self.assertEqual(result.code, 1)
        self.assertEqual([m["path"] for m in result.json()["mismatched"]], ["records.jsonl"])

    def test_deleted_and_added_files(self):
        os.remove(os.path.join(self.folder, "summary.csv"))
        with open(os.path.join(self.folder, "notes.txt"), "w") as handle:
            handle.write("added")
        report = run_cli("verify-run", self.folder).json()
        self.assertEqual((report["missing"], report["unexpected"]),
                         (["summary.csv"], ["notes.txt"]))

    def test_a_core_file_dropped_from_disk_and_catalog(self):
        os.remove(os.path.join(self.folder, "records.jsonl"))
        catalog = ehq_ref.load_json_file(os.path.join(self.folder, ehq_ref.CATALOG))
        del catalog["artifacts"]["records.jsonl"]
        ehq_ref.write_json(os.path.join(self.folder, ehq_ref.CATALOG), catalog)
        report = ehq_ref.verify_run(self.folder)
        self.assertFalse(report["valid"])
        self.assertEqual(report["missing"], ["records.jsonl (not in the catalog)"])

    def test_missing_catalog_is_a_message_not_a_traceback(self):
        os.remove(os.path.join(self.folder, ehq_ref.CATALOG))
        result = run_process("verify-run", self.folder)
        self.assertEqual(result.code, 1)
        self.assertIn("no artifact_catalog.json", result.err)
        self.assertNotIn("Traceback", result.err)

    def test_broken_event_chain(self):
        path = os.path.join(self.folder, "events.jsonl")
        lines = self.read(path).split(b"\n")
        del lines[2]
        with open(path, "wb") as handle:
            handle.write(b"\n".join(lines))
        write_catalog_again = ehq_ref.write_catalog
        write_catalog_again(self.folder)  # hashes now match; only the chain is broken
        report = ehq_ref.verify_run(self.folder)
        self.assertFalse(report["valid"])
        self.assertEqual(report["events"]["first_bad_line"], 3)


class ProgressAndCliTest(RunnerCase):
    def test_json_events_and_quiet(self):
        result = run_process("run", "--output", self.path("runs"), "--run-id", "j", "--json-events",
                             "--bootstrap", 50, "--limit", 12, cwd=self.tmp)
        self.assertEqual(result.code, 0, result.err)
        events = [json.loads(line) for line in result.err.splitlines()]
        steps = [e for e in events if e["event"] == "progress"]
        self.assertEqual([s["completed"] for s in steps], [1, 5, 10, 12])
        self.assertEqual(steps[-1]["percent"], 100.0)
        self.assertIn("SIMULATED", result.out)
        quiet = run_process("run", "--output", self.path("runs"), "--run-id", "q", "--quiet",
                            "--bootstrap", 50, "--limit", 4, cwd=self.tmp)
        self.assertEqual((quiet.code, quiet.err), (0, ""))

    def test_text_progress_line(self):
        result = run_process("run", "--output", self.path("runs"), "--run-id", "t", "--bootstrap",
                             50, "--limit", 5, cwd=self.tmp)
        self.assertRegex(
            result.err, r"\[ehq_ref\] 5/5 \(100\.00%\) \| valid: \d+ \| conf: \d+ \| fail: 0 \| "
            r"excluded: \d+ \| [\d,]+/min \| ETA 0s")

    def test_status_of_a_finished_run(self):
        ehq_ref.run_evaluation(self.options(limit=4))
        status = run_cli("status", self.path("runs", "r")).json()
        self.assertEqual((status["status"], status["final_records"], status["percent"]),
                         ("completed_verified", 4, 100.0))

    def test_init_study(self):
        result = run_cli("init", self.path("study"))
        self.assertEqual(result.code, 0, result.err)
        self.assertEqual(sorted(os.listdir(self.path("study"))),
                         [".env.example", "items.json", "models.json"])
        env = self.read(self.path("study", ".env.example")).decode()
        self.assertIn("OPENAI_API_KEY=\n", env)
        self.assertTrue(
            all(line.endswith("=") for line in env.splitlines() if not line.startswith("#")))
        again = run_cli("init", self.path("study"))
        self.assertEqual(again.code, 2)
        self.assertIn("already exist(s); use --force", again.err)
        self.assertEqual(run_cli("init", self.path("study"), "--force").code, 0)
        registry = ehq_ref.load_registry(self.path("study", "models.json"))
        self.assertIn("offline-demo", registry)


if __name__ == "__main__":
    unittest.main()


class TargetModeRunTest(RunnerCase):
    def test_target_records_and_resume(self):
        options = self.options(targets=(0.5, 0.9), judge="offline")
        result = ehq_ref.run_evaluation(options)
        with open(os.path.join(result["run_dir"], ehq_ref.TARGET_RECORDS)) as handle:
            targets = [json.loads(line) for line in handle]
        self.assertEqual(len(targets), 2 * 38)  # k = 0 items only, once per target
        self.assertEqual(sorted({r["target"] for r in targets}), [0.5, 0.9])
        answered = [r for r in targets if not r["abstained"]]
        self.assertTrue(answered and all(r["score"] in (1.0, -1.0, -9.0) for r in answered))
        self.assertTrue(all(r["score"] == 0.0 for r in targets if r["abstained"]))
        block = result["summary"]["targets"]["offline"]
        self.assertEqual([row["target"] for row in block["targets"]], [0.5, 0.9])
        self.assertTrue(block["audit"]["coverage_non_increasing"])
        judged = [r for r in self.records(result["run_dir"]) if r.get("judge")]
        self.assertTrue(judged and {r["judge"]["grade"]
                                    for r in judged} <= set(ehq_ref.JUDGE_GRADES))
        self.assertEqual(result["summary"]["selective"]["offline"]["judge"]["n"], len(judged))
        # cut the target file mid-way: resume redoes only the missing target records
        path = os.path.join(result["run_dir"], ehq_ref.TARGET_RECORDS)
        with open(path, "rb") as handle:
            lines = handle.read().split(b"\n")[:-1]
        with open(path, "wb") as handle:
            handle.write(b"\n".join(lines[:40]) + b"\n")
        again = ehq_ref.run_evaluation(dataclasses_replace(options, resume=True))
        with open(path, "rb") as handle:
            self.assertEqual(handle.read().split(b"\n")[:-1], lines)
        self.assertEqual(again["summary"], result["summary"])

    def test_targets_change_the_fingerprint(self):
        ehq_ref.run_evaluation(self.options(limit=4, targets=(0.5,)))
        with self.assertRaises(ehq_ref.InputError) as caught:
            ehq_ref.run_evaluation(self.options(limit=4, targets=(0.5, 0.9), resume=True))
        self.assertIn("targets changed", str(caught.exception))
        for bad in ((1.0,), (0.5, 0.5), (-0.1,)):
            with self.assertRaises(ehq_ref.InputError):
                ehq_ref.run_evaluation(self.options(run_id="bad", targets=bad))

    def test_csv_multiple_choice_run_with_idk_frac(self):
        rows = "".join(f"m{i},Which option is number {i}?,A,0,first {i}|second {i}|third {i}\n"
                       for i in range(10))
        items = self.write("items.csv", "id,question,gold,unknown_ok,options\n" + rows)
        result = run_cli("run", "--items", items, "--output", self.path("runs"), "--run-id", "csv",
                         "--idk-frac", "0.5", "--quiet", "--bootstrap", 20, "--target", "0.5")
        self.assertEqual(result.code, 0, result.err)
        records = self.records(self.path("runs", "csv"))
        self.assertEqual(len(records), 10)
        manifest = json.loads(self.read(self.path("runs", "csv", "manifest.json")))
        self.assertEqual(manifest["run"]["fingerprint_inputs"]["idk_frac"], 0.5)
        self.assertTrue(manifest["dataset"]["path"].endswith("items.csv"))


class ScoreRunnerRecordsTest(RunnerCase):
    def test_score_reports_selective_and_injection_numbers(self):
        folder = ehq_ref.run_evaluation(self.options())["run_dir"]
        report = run_cli("score", os.path.join(folder, "records.jsonl"), "--bootstrap", 0, "--risk",
                         0.2).json()
        selective = report["ehq"]["selective"]["offline"]
        summary = json.loads(self.read(folder, "summary.json"))["selective"]["offline"]
        self.assertEqual(selective["risk"], 0.2)
        for key in ("confident_error_rate", "aurc", "injection_followed_rate",
                    "quote_support_proxy", "quotes"):
            self.assertEqual(selective[key], summary[key], key)
        records = self.records(folder)
        traps = [r for r in records if r.get("injected") and r["classification"]]
        self.assertEqual(selective["injection_cases"], len(traps))
        self.assertEqual(selective["injection_followed"], sum(r["followed"] for r in traps))
        wrong = sum(1 for r in records
                    if r["classification"] and r["classification"]["label"] == "CONFIDENT_WRONG")
        scored = sum(1 for r in records if r["classification"])
        self.assertEqual(selective["confident_error_rate"], wrong / scored)


class StoredLinesTest(unittest.TestCase):
    def test_a_kept_record_gives_its_stored_bytes_and_any_other_is_encoded(self):
        stored = ehq_ref.StoredLines()
        record = {"b": 1, "a": [1, 2]}
        stored.keep(record, b"as stored\n")
        self.assertEqual(stored.line(record), b"as stored\n")
        twin = dict(record)  # equal, but not the record that was stored
        self.assertEqual(stored.line(twin), b'{"a":[1,2],"b":1}\n')
        self.assertEqual(stored.line({"k": "\u00e9"}), '{"k":"\u00e9"}\n'.encode("utf-8"))


class ReadingBesideTheCallsTest(RunnerCase):
    """Labelling in a child process (a long run on several CPUs) gives the same run."""

    def run_reading(self, in_child, output, **changes):
        started = self.started = []

        class Watched(ehq_ref.ExchangeReader):
            def __init__(inner, process=False):
                super().__init__(process)
                started.append(inner.in_child)

        saved = ehq_ref.ExchangeReader, ehq_ref.reads_in_child
        ehq_ref.ExchangeReader = Watched
        ehq_ref.reads_in_child = lambda units, reproducible=False: in_child
        try:
            folder = ehq_ref.run_evaluation(self.options(output=self.path(output), **changes))
        finally:
            ehq_ref.ExchangeReader, ehq_ref.reads_in_child = saved
        self.assertIn(in_child, started)
        return tree(folder["run_dir"])

    def assert_same_run(self, here, child):
        self.assertEqual(sorted(here), sorted(child))
        for name in here:  # the events differ only in where a record lands among the requests
            if name not in ("events.jsonl", ehq_ref.CATALOG):
                self.assertEqual(here[name], child[name], name)

    def test_a_run_read_in_a_child_has_the_same_records_and_reports(self):
        self.assert_same_run(self.run_reading(False, "here", epochs=2),
                             self.run_reading(True, "child", epochs=2))

    def test_a_threaded_run_read_in_a_child_has_the_same_records_and_reports(self):
        self.assert_same_run(self.run_reading(False, "here", concurrency=4),
                             self.run_reading(True, "child", concurrency=4))
        # the context's idle reader, the run's, the one left after
        self.assertEqual(self.started, [False, True, False])

    def test_a_large_items_file_starts_the_child_before_planning(self):
        saved = ehq_ref.READ_EARLY_MIN_BYTES
        ehq_ref.READ_EARLY_MIN_BYTES = 1  # every items file is large
        self.addCleanup(setattr, ehq_ref, "READ_EARLY_MIN_BYTES", saved)
        items = self.path("items.json")
        with open(items, "w", encoding="utf-8") as handle:
            json.dump({"questions": ehq_ref.EXAMPLE_ITEMS}, handle)
        here = self.run_reading(False, "here", items=items)
        # started early; then the context's idle reader and the one left after the calls
        self.assertEqual(self.started, [False, False])
        self.assert_same_run(here, self.run_reading(True, "early", items=items))
        self.assertEqual(self.started, [True, False, False])

    def given_early_child(self):
        """An early reader with a child, which run_evaluation is given; (reader, its child)."""
        early = ehq_ref.ExchangeReader(process=True)
        self.addCleanup(early.close)
        saved = ehq_ref.early_reader
        ehq_ref.early_reader = lambda options: early
        self.addCleanup(setattr, ehq_ref, "early_reader", saved)
        self.assertTrue(early.in_child)
        return early, early._child

    def test_an_early_child_the_run_does_not_need_is_closed(self):
        early, child = self.given_early_child()
        # too few answers for a child: the run reads here and ends the early one
        ehq_ref.run_evaluation(self.options(output=self.path("few")))
        self.assertFalse(early.in_child)
        self.assertIsNotNone(child.poll())  # the process has exited

    def test_an_early_child_is_closed_when_planning_fails(self):
        early, child = self.given_early_child()
        with self.assertRaises(ehq_ref.InputError):
            ehq_ref.run_evaluation(self.options(output=self.path("bad"),
                                                items=self.path("missing.json")))
        self.assertFalse(early.in_child)
        self.assertIsNotNone(child.poll())

    def test_when_a_run_starts_its_child_early(self):
        # an items file far larger than READ_EARLY_MIN_BYTES
        options = self.options(items=ehq_ref.__file__, reproducible=False)
        many = ehq_ref.reads_in_child(ehq_ref.READ_PROCESS_MIN_UNITS)
        for changes, expected in (({}, many), ({"items": None}, False),
                                  ({"items": self.path("absent.json")}, False),
                                  ({"limit": ehq_ref.READ_PROCESS_MIN_UNITS - 1}, False),
                                  ({"limit": ehq_ref.READ_PROCESS_MIN_UNITS}, many),
                                  ({"reproducible": True}, False)):
            reader = ehq_ref.early_reader(dataclasses.replace(options, **changes))
            if reader is not None:
                reader.close()
            self.assertEqual(reader is not None, expected, changes)

    def test_when_a_run_reads_in_a_child(self):
        many = ehq_ref.READ_PROCESS_MIN_UNITS
        self.assertEqual(ehq_ref.reads_in_child(many), (ehq_ref.os.cpu_count() or 1) > 1)
        self.assertFalse(ehq_ref.reads_in_child(many - 1))
        self.assertFalse(ehq_ref.reads_in_child(many, reproducible=True))
        ehq_ref.CLASSIFIERS["throwaway"] = ehq_ref.CLASSIFIERS["ehq_ref-1"]
        try:  # a classifier registered at run time exists only in this process
            self.assertFalse(ehq_ref.reads_in_child(many))
        finally:
            del ehq_ref.CLASSIFIERS["throwaway"]
        saved = ehq_ref.KIT_FILE_AT_IMPORT
        ehq_ref.KIT_FILE_AT_IMPORT = (0, 0)  # the file changed since this process imported it
        try:
            self.assertFalse(ehq_ref.reads_in_child(many))
        finally:
            ehq_ref.KIT_FILE_AT_IMPORT = saved


class ExchangeReaderTest(unittest.TestCase):
    ITEM = ehq_ref.EXAMPLE_ITEMS[0]

    def reader(self):
        reader = ehq_ref.ExchangeReader(process=True)
        self.addCleanup(reader.close)
        self.assertTrue(reader.in_child)
        return reader

    def expected(self, answer, confidence):
        found = ehq_ref.read_exchange(answer, self.ITEM, confidence, "percent")
        return json.loads(json.dumps(found))  # what travels back from the child, as JSON

    def test_the_child_reads_as_this_process_does(self):
        reader = self.reader()
        readings = [reader.submit(answer, self.ITEM, reply, "percent")
                    for answer, reply in (("I don't know.", "0"), ("Paris.", "Confidence: 85"),
                                          ("It might be 1961.", None))]
        self.assertEqual([r.result() for r in readings],
                         [self.expected("I don't know.", "0"),
                          self.expected("Paris.", "Confidence: 85"),
                          self.expected("It might be 1961.", None)])
        self.assertEqual(readings[1].result()[1]["ehq_ref-2"]["value"], 0.85)

    def test_the_child_is_sent_only_the_fields_a_reading_reads(self):
        item = dict(self.ITEM, qc={"notes": "x" * 1000}, provenance=[1, 2])
        self.assertEqual(ehq_ref.reading_item(item), {
            name: value for name, value in self.ITEM.items() if name in ehq_ref.READ_ITEM_FIELDS})
        self.assertNotIn("qc", ehq_ref.reading_item(item))
        self.assertEqual(self.reader().submit("Paris.", item, "80", "percent").result(),
                         self.expected("Paris.", "80"))
        self.assertEqual(ehq_ref.reading_item(["not", "an", "item"]), ["not", "an", "item"])

    def test_a_reading_reads_no_other_item_field(self):
        read = set()

        class Watched(dict):
            def __getitem__(self, key):
                read.add(key)
                return super().__getitem__(key)

            def get(self, key, default=None):
                read.add(key)
                return super().get(key, default)

            def __contains__(self, key):
                read.add(key)
                return super().__contains__(key)

            def __iter__(self):
                read.add("(every field)")
                return super().__iter__()

            def items(self):
                read.add("(every field)")
                return super().items()

        corpus = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
        for name in ("answers_round25.json", "answers_round26.json"):
            document = ehq_ref.load_json_file(os.path.join(corpus, name))
            items = {item["question_id"]: item for item in document["items"]}
            for entry in document["answers"]:
                ehq_ref.read_exchange(entry["answer"], Watched(items[entry["item"]]), "85",
                                      "percent")
        self.assertLessEqual(read, set(ehq_ref.READ_ITEM_FIELDS))
        self.assertLessEqual({"category", "question", "document", "correct_answer"}, read)

    def test_the_child_warms_up_on_each_kind_of_answer_and_reply(self):
        seen = []
        saved = ehq_ref.read_exchange, ehq_ref.read_all_confidences
        ehq_ref.read_exchange = lambda answer, item, reply, scale: seen.append(
            (ehq_ref.item_category(item), answer))
        ehq_ref.read_all_confidences = lambda reply, scale, answer: seen.append((scale, reply))
        try:
            ehq_ref.warm_reading()
        finally:
            ehq_ref.read_exchange, ehq_ref.read_all_confidences = saved
        self.assertEqual(sorted({kind for kind, _ in seen}),
                         ["CCQ", "FEQ", "HNQ", "PCQ", "percent", "probability"])
        self.assertEqual(len(seen), 4 * len(ehq_ref.WARM_ANSWERS) +
                         2 * len(ehq_ref.WARM_CONFIDENCES))
        self.assertIn(("HNQ", "The answer is Mikhail Bulgakov."), seen)
        self.assertIn("kit.warm_reading()", ehq_ref.READER_CODE)

    def test_a_reading_that_raises_in_the_child_is_reported_with_its_message(self):
        reading = self.reader().submit("An answer.", ["not", "an", "item"], None, "percent")
        with self.assertRaises(ehq_ref.ReadingFailed) as caught:
            reading.result()
        self.assertRegex(str(caught.exception), r"^AttributeError: 'list' object has no attr")

    def test_readings_waiting_when_the_child_dies_are_read_here(self):
        reader = self.reader()
        reader._child.kill()
        reader._child.wait()
        readings = [reader.submit("Paris.", self.ITEM, "90", "percent") for _ in range(3)]
        self.assertEqual([r.result() for r in readings],
                         [ehq_ref.read_exchange("Paris.", self.ITEM, "90", "percent")] * 3)
        deadline = time.monotonic() + 5
        while reader.in_child and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertFalse(reader.in_child)


class ReaderEnvironmentTest(unittest.TestCase):
    def test_the_child_reader_gets_no_key(self):
        environ = {"PATH": "/usr/bin", "LANG": "C.UTF-8", "OPENAI_API_KEY": CANARY,
                   "MY_ROUTE_KEY": CANARY, "HTTPS_PROXY": "http://user:pw@proxy:8080"}
        self.assertEqual(ehq_ref.reader_environment(environ),
                         {"PATH": "/usr/bin", "LANG": "C.UTF-8"})


class ReaderFaultTest(unittest.TestCase):
    """The child reader failing in odd ways: the run reads here and nothing hangs."""

    def reader_with(self, code):
        saved = ehq_ref.READER_CODE
        ehq_ref.READER_CODE = code
        try:
            reader = ehq_ref.ExchangeReader(process=True)
        finally:
            ehq_ref.READER_CODE = saved
        self.addCleanup(reader.close)
        return reader

    def test_a_child_dying_in_the_middle_of_a_reply(self):
        reader = self.reader_with("import sys\nsys.stdin.readline()\n"
                                  "sys.stdout.write('[0, {\"ehq'); sys.stdout.flush()\n")
        item = ehq_ref.EXAMPLE_ITEMS[0]
        reading = reader.submit("Paris.", item, "80", "percent")
        self.assertTrue(reading.done.wait(10))  # handed back, not left waiting
        self.assertEqual(reading.result(), ehq_ref.read_exchange("Paris.", item, "80", "percent"))

    def test_every_exchange_goes_to_the_child_even_while_it_starts(self):
        slow = "import time\ntime.sleep(0.5)\n" + ehq_ref.READER_CODE  # slow to start
        reader = self.reader_with(slow)
        item = ehq_ref.EXAMPLE_ITEMS[0]
        readings = [reader.submit(f"It was {1900 + n}.", item, "70", "percent")
                    for n in range(12)]
        self.assertEqual([r.done.is_set() for r in readings], [False] * len(readings))
        self.assertEqual([r.result() for r in readings],  # what travels back, as JSON
                         [json.loads(json.dumps(ehq_ref.read_exchange(
                             f"It was {1900 + n}.", item, "70", "percent")))
                          for n in range(len(readings))])
        self.assertEqual(len(reader._waiting), 0)

    def test_a_caller_never_waits_on_a_full_pipe(self):
        import threading
        reader = self.reader_with("import time\ntime.sleep(60)\n")
        item = dict(ehq_ref.EXAMPLE_ITEMS[0], document="x" * 100_000)
        readings = []
        caller = threading.Thread(target=lambda: readings.extend(
            reader.submit("A.", item, None, "percent") for _ in range(5)), daemon=True)
        caller.start()
        caller.join(5.0)
        self.assertFalse(caller.is_alive())  # all five queued, none written yet
        self.assertEqual(len(readings), 5)
        started = time.monotonic()
        reader.close()
        self.assertLess(time.monotonic() - started, 5.0)
        self.assertEqual([r.result() for r in readings],  # the child is gone: read here
                         [ehq_ref.read_exchange("A.", item, None, "percent")] * 5)

    def test_a_failed_reading_is_recorded_as_the_childs_exception(self):
        class Context:
            secrets = ehq_ref.Secrets(environ={})
        route = ehq_ref.Route(name="m", provider="offline", provider_model="offline")
        unit = (route, ehq_ref.EXAMPLE_ITEMS[0], None, None)
        child = ehq_ref.internal_failure_record(
            Context, unit, ehq_ref.ReadingFailed("AttributeError: no such thing"))
        here = ehq_ref.internal_failure_record(Context, unit, AttributeError("no such thing"))
        self.assertEqual(child, here)
        self.assertEqual(here["internal_error"], "AttributeError: no such thing")
