"""Exports (Inspect AI logs, lm-eval files) and the import of an Inspect log by `score`."""

import hashlib
import json
import os
import re
import unittest

from support import EXAMPLES, TempDirTestCase, ehq_ref, run_cli

ITEMS = os.path.join(EXAMPLES, "items.json")
# Field order of Inspect's log models (inspect_ai 0.3.285, log format 2): a log's keys must
# come in this order (its header reader streams the file and stops at "samples").
INSPECT_ORDER = {
    "log": ("version", "status", "eval", "plan", "results", "stats", "error", "invalidated",
            "log_updates", "config_updates", "tags", "metadata", "samples", "reductions"),
    "eval": ("eval_set_id", "eval_id", "run_id", "created", "task", "task_id", "task_version",
             "task_file", "task_display_name", "task_description", "task_registry_name",
             "task_attribs", "task_args", "task_args_passed", "solver", "solver_args",
             "solver_args_passed", "tags", "dataset", "sandbox", "model",
             "model_generate_config", "model_base_url", "model_args", "model_roles", "config",
             "revision", "packages", "metadata", "viewer", "scorers", "metrics",
             "headline_metric", "shards"),
    "dataset": ("name", "location", "samples", "sample_ids", "shuffled"),
    "generate": ("max_retries", "timeout", "attempt_timeout", "stream_idle_timeout",
                 "max_connections", "adaptive_connections", "system_message", "max_tokens",
                 "top_p", "temperature", "stop_seqs", "best_of", "frequency_penalty",
                 "presence_penalty", "logit_bias", "seed", "top_k"),
    "plan": ("name", "steps", "finish", "config"),
    "step": ("solver", "params", "params_passed"),
    "results": ("total_samples", "completed_samples", "logged_samples", "early_stopping",
                "scores", "headline", "metadata"),
    "score_summary": ("name", "scorer", "reducer", "scored_samples", "unscored_samples",
                      "params", "metrics", "metadata"),
    "metric": ("name", "group", "value", "params", "metadata"),
    "stats": ("started_at", "completed_at", "model_usage", "role_usage",
              "connection_limit_history"),
    "sample": ("id", "epoch", "input", "choices", "target", "description", "sandbox", "files",
               "setup", "messages", "output", "scores", "metadata", "store", "events",
               "timelines", "model_usage", "role_usage", "model_fallbacks", "started_at",
               "completed_at", "total_time", "working_time", "uuid", "invalidation", "error",
               "error_retries", "attachments", "events_data", "limit", "turn_count"),
    "message": ("id", "content", "source", "metadata", "role", "tool_call_id", "tool_calls",
                "model"),
    "output": ("model", "choices", "completion", "usage", "input_context_tokens", "fallback",
               "time", "metadata", "error", "response_id"),
    "choice": ("message", "stop_reason", "stop_details", "logprobs", "prompt_logprobs"),
    "usage": ("input_tokens", "output_tokens", "total_tokens", "input_tokens_cache_write",
              "input_tokens_cache_read", "reasoning_tokens", "total_cost"),
    "score": ("value", "answer", "explanation", "reason", "metadata", "history"),
    "error": ("message", "traceback", "traceback_ansi"),
}
LOG_NAME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-00-00_ehq-ref_[2-9A-HJ-NP-Za-km-z]{22}"
                      r"\.json$")
LM_KEYS = ("doc_id", "doc", "target", "arguments", "resps", "filtered_resps", "filter",
           "metrics", "doc_hash", "prompt_hash", "target_hash")


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ExportCase(TempDirTestCase):
    def options(self, **changes):
        fields = dict(output=self.path("runs"), run_id="r", progress="quiet", use_cache=False,
                      bootstrap=200, env_file=None, reproducible=True)
        fields.update(changes)
        return ehq_ref.RunOptions(**fields)

    def one_line(self, result, *names):
        self.assertEqual(result.code, 2, result)
        self.assertEqual(result.err.count("\n"), 1, result.err)
        for name in names:
            self.assertIn(name, result.err)

    def assert_ordered(self, keys, kind):
        declared = INSPECT_ORDER[kind]
        self.assertTrue(set(keys) <= set(declared), (kind, set(keys) - set(declared)))
        self.assertEqual(list(keys), [k for k in declared if k in keys], kind)


class InspectExportTest(ExportCase):
    @classmethod
    def setUpClass(cls):
        cls.case = ExportCase("setUp")
        cls.case.setUp()
        cls.result = ehq_ref.run_evaluation(cls.case.options(targets=(0.5,)))
        cls.folder = cls.result["run_dir"]
        result = run_cli("export", cls.folder, "--format", "inspect", "--output",
                         cls.case.path("logs"))
        assert result.code == 0, result
        cls.log_path = result.out.strip()
        with open(cls.log_path, encoding="utf-8") as handle:
            cls.text = handle.read()
        cls.log = json.loads(cls.text)

    @classmethod
    def tearDownClass(cls):
        cls.case.doCleanups()

    def test_file_is_named_and_formatted_as_inspect_writes_logs(self):
        name = os.path.basename(self.log_path)
        self.assertRegex(name, LOG_NAME)
        self.assertEqual(name, f"2026-01-01T00-00-00-00-00_ehq-ref_{self.log['eval']['task_id']}"
                               ".json")
        self.assertEqual(self.text, json.dumps(self.log, indent=2, ensure_ascii=False))
        self.assertFalse(self.text.endswith("\n"))
        self.assertNotIn("null", self.text)
        again = run_cli("export", self.folder, "--format", "inspect", "--output",
                        self.case.path("again.json"))
        with open(again.out.strip(), encoding="utf-8") as handle:
            self.assertEqual(handle.read(), self.text)

    def test_fields_come_in_inspects_order(self):
        log = self.log
        self.assertEqual(list(log), ["version", "status", "eval", "plan", "results", "stats",
                                     "invalidated", "tags", "metadata", "samples"])
        self.assert_ordered(log["eval"], "eval")
        self.assert_ordered(log["eval"]["dataset"], "dataset")
        self.assert_ordered(log["eval"]["model_generate_config"], "generate")
        self.assert_ordered(log["plan"], "plan")
        for step in log["plan"]["steps"]:
            self.assert_ordered(step, "step")
        self.assert_ordered(log["results"], "results")
        for score in log["results"]["scores"]:
            self.assert_ordered(score, "score_summary")
            for metric in score["metrics"].values():
                self.assert_ordered(metric, "metric")
        self.assert_ordered(log["stats"], "stats")
        for sample in log["samples"]:
            self.assert_ordered(sample, "sample")
            self.assert_ordered(sample["output"], "output")
            self.assert_ordered(sample["output"]["usage"], "usage")
            for choice in sample["output"]["choices"]:
                self.assert_ordered(choice, "choice")
            for message in sample["messages"]:
                self.assert_ordered(message, "message")
            for score in sample["scores"].values():
                self.assert_ordered(score, "score")
        self.assertEqual(log["tags"], sorted(log["eval"]["tags"]))
        self.assertEqual(log["metadata"], log["eval"]["metadata"])

    def test_contents_map_the_run(self):
        log, summary = self.log, self.result["summary"]
        ours = log["eval"]["metadata"]["ehq_ref"]
        self.assertEqual(ours["converter"], ehq_ref.EXPORT_FORMATS["inspect"])
        self.assertEqual((ours["model"], log["eval"]["model"]),
                         ("offline", "offline/offline-simulated-1"))
        self.assertEqual(ours["not_requested"], {"PCQ-ECO-002": "pcq_event_not_after_cutoff",
                                                 "PCQ-POL-002": "pcq_event_not_after_cutoff"})
        ids = [s["id"] for s in log["samples"]]
        self.assertEqual(ids, sorted(ids))
        self.assertEqual(len(ids), 38)
        self.assertEqual(log["eval"]["dataset"]["sample_ids"], ids)
        metrics = log["results"]["scores"][0]["metrics"]
        row = summary["models"][0]
        self.assertEqual({name: metrics[name]["value"] for name in ("EHQ1", "EHQ2", "EHQ3", "EHQ")},
                         {name: row[name] for name in ("EHQ1", "EHQ2", "EHQ3", "EHQ")})
        self.assertEqual(metrics["EHQ"]["metadata"], {"low": row["EHQ_low"],
                                                      "high": row["EHQ_high"]})
        self.assertEqual(log["results"]["headline"],
                         {"scorer": "ehq_label", "score": "ehq_label", "metric": "EHQ"})
        records = {r["question_id"]: r for r in self.records()}
        for sample in log["samples"]:
            record = records[sample["id"]]
            roles = [m["role"] for m in sample["messages"]]
            self.assertEqual(roles, ["system", "user", "assistant", "user", "assistant"])
            self.assertEqual(sample["messages"][2]["content"], record["answer_text"])
            self.assertEqual(sample["messages"][4]["content"], record["confidence_text"])
            self.assertEqual(sample["output"]["completion"], record["confidence_text"])
            self.assertEqual(sample["scores"]["ehq_label"]["value"],
                             record["classification"]["label"])
            self.assertEqual(sample["scores"]["confidence"]["value"], record["parsed_confidence"])
            self.assertEqual(sample["metadata"]["targets"][0]["target"], 0.5)
            self.assertEqual(list(sample["model_usage"]), ["offline/offline-simulated-1"])

    def records(self):
        with open(os.path.join(self.folder, "records.jsonl"), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]

    def test_score_of_the_exported_log_gives_the_runs_ehq(self):
        result = run_cli("score", self.log_path, "--items", ITEMS, "--bootstrap", "200")
        self.assertEqual(result.code, 0, result)
        report = result.json()
        imported = report["ehq"]["models"]["offline"]["overall"]
        run = self.result["summary"]["scores"]["offline"]["overall"]
        for name in ("EHQ1", "EHQ2", "EHQ3", "EHQ", "ECE", "brier", "response_distribution",
                     "n_valid_ehq12", "n_ehq3_calibration"):
            self.assertEqual(imported[name], run[name], name)
        self.assertEqual(imported["intervals"]["bootstrap"], run["intervals"]["bootstrap"])
        self.assertEqual(report["ehq"]["classifier_sensitivity"]["offline"]["EHQ"],
                         self.result["summary"]["classifier_sensitivity"]["offline"]["EHQ"])
        self.assertEqual((report["input"]["format"], report["input"]["samples"],
                          report["input"]["converter"]), ("inspect", 38, "ehq_ref-inspect-1"))
        other = run_cli("score", self.log_path, "--items", ITEMS, "--bootstrap", "0",
                        "--classifier", "ehq_ref-1").json()
        self.assertEqual(other["ehq"]["models"]["offline"]["overall"]["EHQ"],
                         self.result["summary"]["classifier_sensitivity"]["offline"]["EHQ"][
                             "ehq_ref-1"]["EHQ"])


class LmEvalExportTest(ExportCase):
    def test_files_follow_the_harness_layout_and_schema(self):
        run = ehq_ref.run_evaluation(self.options())
        result = run_cli("export", run["run_dir"], "--format", "lm-eval", "--output",
                         self.path("lm"))
        self.assertEqual(result.code, 0, result)
        results_path, samples_path = result.out.split()
        date = "2026-01-01T00-00-00.000000"
        self.assertEqual(results_path, self.path("lm", "offline", f"results_{date}.json"))
        self.assertEqual(samples_path, self.path("lm", "offline", f"samples_ehq_ref_{date}.jsonl"))
        with open(samples_path, encoding="utf-8") as handle:
            lines = [json.loads(line) for line in handle]
        records = self.records(run["run_dir"])
        answered = [r for r in records if ehq_ref.answer_status(r) == "answered"]
        self.assertEqual(len(lines), len(answered))
        for line, record in zip(lines, answered):
            self.assertEqual(tuple(line)[:len(LM_KEYS)], LM_KEYS)
            self.assertEqual(tuple(line)[len(LM_KEYS):], tuple(line["metrics"]))
            self.assertTrue(all(type(line[m]) is float for m in line["metrics"]))
            self.assertEqual(line["doc_id"], records.index(record))
            self.assertEqual(line["resps"], [[record["answer_text"]], [record["confidence_text"]]])
            self.assertEqual(line["filtered_resps"], [r[0] for r in line["resps"]])
            self.assertEqual(line["doc_hash"],
                             sha(json.dumps(line["doc"], indent=2, ensure_ascii=False)))
            self.assertEqual(line["prompt_hash"], sha(line["arguments"]["gen_args_0"]["arg_0"]))
            self.assertEqual(line["target_hash"], sha(line["target"]))
            self.assertEqual(line["confidence"], record["parsed_confidence"])
            self.assertEqual(line["ehq1"], float(record["classification"]["label"]
                                                 in ("ABSTAIN", "HEDGE")))
        with open(results_path, encoding="utf-8") as handle:
            results = json.load(handle)
        task = results["results"]["ehq_ref"]
        row = run["summary"]["models"][0]
        self.assertEqual((task["ehq,none"], task["ehq1,none"], task["ehq3,none"],
                          task["ehq_stderr,none"]), (row["EHQ"], row["EHQ1"], row["EHQ3"], "N/A"))
        for name in ("ehq1", "ehq2", "abstain", "hedge", "confident_correct", "confident_wrong"):
            self.assertAlmostEqual(sum(x[name] for x in lines) / len(lines), task[f"{name},none"],
                                   places=12, msg=name)
        self.assertEqual(results["configs"]["ehq_ref"]["metadata"]["converter"],
                         "ehq_ref-lm-eval-1")
        self.assertEqual(results["task_hashes"]["ehq_ref"], sha("".join(
            x["doc_hash"] + x["prompt_hash"] + x["target_hash"] for x in lines)))
        self.assertEqual(list(results)[:8], ["results", "group_subtasks", "configs", "versions",
                                             "n-shot", "higher_is_better", "n-samples",
                                             "config"])
        self.assertEqual(results["n-samples"]["ehq_ref"], {"original": 40, "effective": 38})

    def records(self, folder):
        with open(os.path.join(folder, "records.jsonl"), encoding="utf-8") as handle:
            return [json.loads(line) for line in handle]


class ExportInputTest(ExportCase):
    def test_bad_inputs_are_one_line_errors(self):
        self.one_line(run_cli("export", self.path("none"), "--format", "inspect", "--output",
                              self.path("x")), self.path("none"))
        self.one_line(run_cli("export", self.tmp, "--format", "lm-eval", "--output",
                              self.path("x")), "no manifest.json")
        self.assertEqual(run_cli("export", self.tmp, "--format", "csv", "--output", "x").code, 2)
        registry = self.write("models.json", json.dumps({"models": [
            {"name": "other", "provider": "offline", "provider_model": "offline-simulated-1"}]}))
        run = ehq_ref.run_evaluation(self.options(models=("offline", "other"), registry=registry,
                                                  bootstrap=0))
        folder = run["run_dir"]
        single = self.path("one.json")
        self.one_line(run_cli("export", folder, "--format", "inspect", "--output", single),
                      single, "give --model or a folder")
        self.one_line(run_cli("export", folder, "--format", "inspect", "--output", single,
                              "--model", "third"), "the run has no model 'third'")
        self.assertEqual(run_cli("export", folder, "--format", "inspect", "--output", single,
                                 "--model", "other").code, 0)
        with open(single, encoding="utf-8") as handle:
            self.assertEqual(json.load(handle)["eval"]["metadata"]["ehq_ref"]["model"], "other")
        both = run_cli("export", folder, "--format", "inspect", "--output", self.path("logs"))
        names = [os.path.basename(p) for p in both.out.split()]
        self.assertEqual(len(set(names)), 2)
        self.one_line(run_cli("export", folder, "--format", "lm-eval", "--output", single),
                      single, "is a file")


def foreign_log(samples, model="openai/gpt-x", version=2):
    """An Inspect log as another Inspect task writes it (no ehq_ref metadata)."""
    return {"version": version, "status": "success",
            "eval": {"created": "2026-02-01T10:00:00+00:00", "task": "qa", "dataset": {},
                     "model": model, "config": {}},
            "plan": {}, "stats": {}, "samples": samples}


def foreign_sample(sample_id, *texts, **extra):
    messages = [{"content": "question", "source": "input", "role": "user"}]
    for text in texts:
        messages.append({"content": text, "source": "generate", "role": "assistant"})
        messages.append({"content": "How confident?", "role": "user"})
    return dict({"id": sample_id, "epoch": 1, "input": "question", "target": "x",
                 "messages": messages[:-1] if texts else messages}, **extra)


class InspectImportTest(ExportCase):
    def write_log(self, log, name="2026-02-01T10-00-00-00-00_qa_abc.json", nan=False):
        text = json.dumps(log, indent=2)
        if nan:
            text = text.replace('"value": "NAN"', '"value": NaN')
        return self.write(name, text)

    def test_answers_of_a_foreign_log_are_labelled_and_scored(self):
        items = {i["question_id"]: i for i in ehq_ref.EXAMPLE_ITEMS}
        parts = [{"type": "reasoning", "reasoning": "hmm"},
                 {"type": "text", "text": "The answer is"}, {"type": "text", "text": "Canberra."}]
        log = foreign_log([
            foreign_sample("HNQ-GEO-001", parts, "attachment://abc",
                           attachments={"abc": "95"},
                           scores={"match": {"value": "NAN", "answer": "x"}}),
            foreign_sample("FEQ-ORG-001", "I don't know."),
            foreign_sample("HNQ-SCI-001", error={"message": "timeout", "traceback": "",
                                                 "traceback_ansi": ""}),
            foreign_sample("PCQ-ECO-001", "I think it was 5%, not sure.", "60")])
        path = self.write_log(log, nan=True)
        result = run_cli("score", path, "--items", ITEMS, "--bootstrap", "0")
        self.assertEqual(result.code, 0, result)
        report = result.json()
        overall = report["ehq"]["models"]["openai/gpt-x"]["overall"]
        expected = {qid: ehq_ref.classify(answer, items[qid], "ehq-1.1.4")["label"] for qid, answer
                    in (("HNQ-GEO-001", "The answer is\nCanberra."),
                        ("FEQ-ORG-001", "I don't know."),
                        ("PCQ-ECO-001", "I think it was 5%, not sure."))}
        counts = {label: list(expected.values()).count(label) for label in ehq_ref.LABELS}
        self.assertEqual(overall["response_distribution"], counts)
        self.assertEqual((overall["technical_failures"], overall["n_valid_ehq12"],
                          overall["n_valid_ehq3"], overall["n_terminal_missing_confidence"]),
                         (1, 3, 2, 1))
        self.assertEqual(report["input"]["model"], "openai/gpt-x")
        records, _ = ehq_ref.inspect_records(path, ITEMS)
        by_id = {r["question_id"]: r for r in records}
        self.assertEqual(by_id["HNQ-GEO-001"]["parsed_confidence"], 0.95)
        self.assertEqual(by_id["HNQ-SCI-001"]["exclusion_reason"], "inspect_error")
        self.assertIsNone(by_id["FEQ-ORG-001"]["parsed_confidence"])

    def test_bad_logs_are_one_line_errors_naming_the_file_and_sample(self):
        good = foreign_sample("HNQ-GEO-001", "Canberra.", "90")
        path = self.write_log(foreign_log([good, foreign_sample("NOPE-1", "x")]))
        self.one_line(run_cli("score", path, "--items", ITEMS), path, "$.samples[1].id",
                      "'NOPE-1'", ITEMS)
        self.one_line(run_cli("score", path), path, "--items")
        twice = self.write_log(foreign_log([good, dict(good, epoch=2)]), "twice.json")
        self.one_line(run_cli("score", twice, "--items", ITEMS), twice, "$.samples[1]",
                      "appears again")
        newer = self.write_log(foreign_log([good], version=3), "newer.json")
        self.one_line(run_cli("score", newer, "--items", ITEMS), newer, "$.version")
        broken = self.write("2026-02-01T10-00-00_broken.json", '{"version": 2, "status": "x", ')
        self.one_line(run_cli("score", broken, "--items", ITEMS), broken, "invalid JSON")
        records = self.write("records.json", json.dumps([]))
        self.one_line(run_cli("score", records, "--items", ITEMS), records,
                      "is for an Inspect JSON log")
        zipped = self.write("log.eval", b"PK\x03\x04")
        self.one_line(run_cli("score", zipped, "--items", ITEMS), zipped, "inspect log convert")
        self.one_line(run_cli("score", path, "--items", self.path("missing.json")),
                      self.path("missing.json"))
        self.one_line(run_cli("score", records, "--classifier", "ehq_ref-1"), records,
                      "--classifier is for an Inspect log")
        no_model = self.write_log(foreign_log([good], model=""), "no_model.json")
        self.one_line(run_cli("score", no_model, "--items", ITEMS), no_model, "$.eval.model")


if __name__ == "__main__":
    unittest.main()
