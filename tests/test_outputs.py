"""Outputs that never look surer than they are, and commands that compose (one test or more
for every fault found by trying the kit as a new user would)."""

import csv
import io
import json
import os
import re
import xml.etree.ElementTree as ET

from fake_provider import FakeProvider
from support import EXAMPLES, TempDirTestCase, ehq_ref, run_cli, run_process

SVG = "{http://www.w3.org/2000/svg}"


def offline_run(case, *args):
    """`run` of the offline model in a subprocess (the way users run it); returns (result, dir)."""
    result = run_process("run", "--output", case.path("runs"), "--run-id", "r", "--quiet",
                         "--env-file", case.path("none"), "--no-cache", *args)
    return result, case.path("runs", "r")


def read(*parts):
    with open(os.path.join(*parts), encoding="utf-8") as handle:
        return handle.read()


class HonestUncertaintyTest(TempDirTestCase):
    def test_a_small_run_marks_its_intervals_and_warnings_everywhere(self):
        result, folder = offline_run(self, "--limit", 20)
        self.assertEqual(result.code, 0, result.err)
        # one cluster per stratum: the bootstrap falls back to category strata and says so
        summary = ehq_ref.load_json_file(os.path.join(folder, "summary.json"))
        ehq3 = summary["scores"]["offline"]["overall"]["intervals"]["bootstrap"]["EHQ3"]
        self.assertFalse(ehq3["degenerate"])
        self.assertLess(ehq3["low"], ehq3["high"])
        self.assertEqual(ehq3["resampling"]["strata"], "category")
        note = "a subcategory has one cluster: resampled with category strata"
        self.assertIn(f"note: offline: EHQ3 interval: {note}", result.out)
        self.assertIn("EHQ3 rests on", result.out)  # the small-n warning reaches stdout
        report = read(folder, "report.md")
        self.assertIn(f"- offline, EHQ3: {note}", report)
        self.assertIn("EHQ3 rests on", report)
        rows = list(csv.DictReader(io.StringIO(read(folder, "summary.csv"))))
        self.assertIn(note, rows[0]["notes"])
        self.assertIn(r"$^\dagger$", read(folder, "summary.tex"))
        self.assertIn(r"\toprule", read(folder, "summary.tex"))

    def test_a_group_of_one_cluster_has_no_interval_and_the_figure_shows_it(self):
        summary = {"models": [dict(
            model="m", rank=1, n_valid_ehq12=1, notes={"EHQ3": "no interval: one cluster"},
            **{f"{n}{s}": v for n in ("EHQ1", "EHQ2", "EHQ3", "EHQ") for s, v in
               (("", 0.5), ("_low", None if n in ("EHQ3", "EHQ") else 0.2),
                ("_high", None if n in ("EHQ3", "EHQ") else 0.8))})]}
        root = ET.fromstring(ehq_ref.components_svg(summary))
        marks = [c for c in root.iter(SVG + "circle") if c.get("class") == "no-interval"]
        self.assertEqual(len(marks), 2)
        keys = [t.text for t in root.iter(SVG + "text") if t.get("class") == "key"]
        self.assertEqual(keys, ["a hollow mark: no interval (see the notes in report.md)"])


class GateLikeWithLikeTest(TempDirTestCase):
    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.root = tempfile.mkdtemp(prefix="ehq_ref_gate_")
        def run(run_id, **changes):
            fields = dict(output=cls.root, run_id=run_id, progress="quiet", bootstrap=200,
                          env_file=None, reproducible=True, use_cache=False)
            fields.update(changes)
            return ehq_ref.run_evaluation(ehq_ref.RunOptions(**fields))["run_dir"]
        cls.full = run("full")
        cls.same = run("same")
        cls.small = run("small", limit=20)
        cls.other_classifier = run("ref1", classifier="ehq_ref-1")

    @classmethod
    def tearDownClass(cls):
        import shutil
        shutil.rmtree(cls.root, True)

    def test_the_same_run_passes(self):
        result = run_cli("gate", self.full, "--baseline", self.same)
        self.assertEqual(result.code, 0, result.err)
        paired = run_cli("gate", self.full, "--baseline", self.same, "--test", "paired")
        self.assertEqual(paired.code, 0, paired.err)
        report = paired.json()
        self.assertEqual(report["test"], "paired")
        self.assertEqual(report["models"]["offline"]["status"], "gated")

    def test_different_items_or_classifier_are_refused(self):
        result = run_cli("gate", self.small, "--baseline", self.full)
        self.assertEqual(result.code, 2)
        self.assertIn("measure different things (items: run", result.err)
        result = run_cli("gate", self.other_classifier, "--baseline", self.full)
        self.assertEqual(result.code, 2)
        self.assertIn('classifier: run "ehq_ref-1", baseline "ehq_ref-2"', result.err)

    def test_a_missing_model_is_a_failure_and_an_empty_comparison_is_refused(self):
        absent = run_cli("gate", self.full, "--baseline", self.same, "--model", "nobody")
        self.assertEqual(absent.code, 1)
        self.assertIn("nobody: missing from the run", absent.err)
        other = self.write("b.json", json.dumps({"risk": 0.1, "models": {
            "offline": {"EHQ": 0.1}, "gone": {"EHQ": 0.1}}}))
        result = run_cli("gate", self.full, "--baseline", other)
        self.assertEqual(result.code, 1)
        self.assertIn("regression: gone: model", result.err)
        nothing = self.write("n.json", json.dumps({"risk": 0.1, "models": {"gone": {"EHQ": 0.1}}}))
        report = run_cli("gate", self.full, "--baseline", nothing)
        self.assertEqual(report.code, 1)  # the baseline model is missing: a failure, not a pass

    def test_score_output_and_metrics_files_are_valid_inputs(self):
        scored = self.write("s.json", run_cli("score", os.path.join(self.full, "records.jsonl"),
                                              "--bootstrap", 0).out)
        result = run_cli("gate", scored, "--baseline", self.full)
        self.assertEqual(result.code, 0, result.err)
        result = run_cli("gate", self.full, "--baseline", scored)
        self.assertEqual(result.code, 0, result.err)
        boolean = self.write("bool.json", json.dumps({"risk": 0.1, "metrics": {"EHQ": True}}))
        result = run_cli("gate", self.full, "--baseline", boolean)
        self.assertEqual(result.code, 2)
        self.assertIn("$.metrics.EHQ: expected a number, got true", result.err)

    def test_paired_test_finds_a_regression_whose_interval_excludes_zero(self):
        server = FakeProvider("chat", responder=lambda body: "85" if "confidence" in
                              json.dumps(body).lower() else "It was definitely Nobody Special.")
        self.addCleanup(server.close)
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "offline", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False}]}))
        worse = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("w"), run_id="w", progress="quiet", bootstrap=200, env_file=None,
            reproducible=True, use_cache=False, registry=registry))["run_dir"]
        result = run_cli("gate", worse, "--baseline", self.full, "--test", "paired")
        self.assertEqual(result.code, 1, result.err)
        self.assertRegex(result.err, r"regression: offline: EHQ2: -0\.\d+ \[-0\.\d+, -0\.\d+\]")


class VisibleExclusionsTest(TempDirTestCase):
    def test_pcq_exclusions_are_explained(self):
        result, folder = offline_run(self)
        self.assertIn("2 item(s) excluded: PCQ not asked: the event did not start after the "
                      "route's pcq_cutoff", result.out)
        self.assertIn("## Exclusions and failures", read(folder, "report.md"))

    def test_example_routes_and_init_carry_pcq_fields(self):
        routes = ehq_ref.load_registry(os.path.join(EXAMPLES, "models.json"))
        for route in routes.values():
            if route.provider != "offline":
                self.assertTrue(route.pcq_cutoff or route.note, route.name)
        ehq_ref.init_study(self.path("study"))
        study = ehq_ref.load_registry(self.path("study", "models.json"))
        self.assertIn("pcq_cutoff", study["my-local"].note)
        result = run_cli("init", self.path("study2"))
        self.assertIn(f"--env-file {self.path('study2')}/.env", result.out)

    def test_a_judge_that_never_grades_is_a_warning_and_a_failure(self):
        server = FakeProvider("chat", responder=lambda body: "Hmm, hard to say.")
        self.addCleanup(server.close)
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "judge", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False}]}))
        result = run_process("run", "--registry", registry, "--judge", "judge", "--limit", 12,
                             "--output", self.path("runs"), "--run-id", "j", "--quiet",
                             "--env-file", self.path("none"), "--no-cache")
        self.assertEqual(result.code, 1)
        self.assertIn("the judge gave no usable grade for", result.out)
        self.assertIn("offline (judge): technical failures above --max-failure-rate", result.err)


class UsageTest(TempDirTestCase):
    def test_every_request_is_counted_by_purpose(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False,
            "price_input_per_million": 1.0, "price_output_per_million": 2.0}]}))
        result = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="u", progress="quiet", bootstrap=0, env_file=None,
            use_cache=False, registry=registry, models=("local",), limit=8, targets=(0.5, 0.9),
            judge="local"))
        usage = result["summary"]["usage"]["local"]
        self.assertEqual(usage["http_requests"], len(server.requests))
        self.assertEqual(sorted(usage["by_purpose"]), ["answer", "confidence", "judge", "target"])
        self.assertEqual(usage["estimated_cost"],
                         usage["input_tokens"] * 1.0 / 1e6 + usage["output_tokens"] * 2.0 / 1e6)
        offline = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="o", progress="quiet", bootstrap=0, env_file=None,
            limit=4))["summary"]["usage"]["offline"]
        self.assertIsNone(offline["estimated_cost"])  # no price table: unknown, never 0.0


class SetUpTest(TempDirTestCase):
    def test_bad_numbers_are_refused_before_anything_is_created(self):
        for flag, value in (("--rpm", "-5"), ("--rpm", "0"), ("--tpm", "-1"),
                            ("--max-retries", "-3"), ("--risk", "nan"), ("--risk", "2"),
                            ("--n-bins", "1"), ("--level", "0"), ("--bootstrap", "-1"),
                            ("--max-failure-rate", "inf"), ("--target", "0.5,1"),
                            ("--compare", "a")):
            result = run_cli("run", flag, value, "--output", self.path("runs"))
            self.assertEqual(result.code, 2, (flag, value, result.err))
            self.assertEqual(len(result.err.strip().splitlines()), 1, result.err)
            self.assertFalse(os.path.exists(self.path("runs")), flag)

    def test_resume_takes_the_settings_from_the_manifest(self):
        result, folder = offline_run(self, "--limit", 6, "--seed", 7, "--target", "0.5")
        self.assertEqual(result.code, 0, result.err)
        again = run_process("run", "--resume", folder, "--quiet")
        self.assertEqual(again.code, 0, again.err)
        self.assertEqual(ehq_ref.load_json_file(os.path.join(folder, "manifest.json"))
                         ["selection"]["limit"], 6)
        conflict = run_process("run", "--resume", folder, "--limit", 8)
        self.assertEqual(conflict.code, 2)
        self.assertIn("limit 8 (the run has 6)", conflict.err)
        status = ehq_ref.run_status(folder)
        self.assertEqual(status["models"]["offline"]["answer"],
                         {"expected": 6, "done": 6, "failed_to_redo": 0, "pending": 0})
        self.assertEqual(status["models"]["offline"]["target"]["done"], 5)

    def test_status_names_failures_to_redo(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        server.rule = lambda body, index: __import__("fake_provider").Reply(
            400, {"error": {"message": "no"}}) if index == 0 else None
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False}]}))
        folder = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="s", progress="quiet", bootstrap=0, env_file=None,
            use_cache=False, registry=registry, models=("local",), limit=4))["run_dir"]
        status = ehq_ref.run_status(folder)
        self.assertEqual(status["status"], "completed_with_failures_to_redo")
        self.assertEqual(status["models"]["local"]["answer"]["failed_to_redo"], 1)
        self.assertIn("--resume", status["resume"])

    def test_progress_counts_items_and_targets_apart_across_a_resume(self):
        result, folder = offline_run(self, "--limit", 6, "--target", "0.5")
        resumed = run_process("run", "--resume", folder, "--json-events")
        lines = [json.loads(l) for l in resumed.err.splitlines() if l.startswith("{")]
        loaded = [l for l in lines if l["event"] == "resume_loaded"]
        self.assertEqual(loaded[0]["records"], 11)  # 6 items and 5 target records


class ComposeTest(TempDirTestCase):
    def test_items_load_from_json_jsonl_and_csv_alike(self):
        items = ehq_ref.EXAMPLE_ITEMS[:8]
        jsonl = self.write("items.jsonl", "".join(json.dumps(it) + "\n" for it in items))
        for path in (jsonl, os.path.join(EXAMPLES, "items.json")):
            self.assertEqual(run_cli("validate", path).code, 0, path)
        table = self.write("items.csv", "id,question,gold,unknown_ok\n"
                                        "q1,Which river flows through Ljubljana?,Ljubljanica,0\n")
        self.assertEqual(run_cli("validate", table).code, 0)
        for path in (jsonl, table):
            result = run_cli("run", "--items", path, "--output", self.path("runs"), "--run-id",
                             os.path.basename(path), "--quiet", "--env-file", self.path("none"),
                             "--bootstrap", 0)
            self.assertEqual(result.code, 0, result.err)
        bad = self.write("bad.jsonl", json.dumps(items[0]) + "\n[1, 2]\n")
        result = run_cli("validate", bad)
        self.assertEqual(result.code, 2)
        self.assertIn("bad.jsonl: line 2: expected an item object", result.err)

    def test_adjudication_works_with_score(self):
        result, folder = offline_run(self, "--limit", 8)
        records = os.path.join(folder, "records.jsonl")
        first = json.loads(read(records).splitlines()[0])
        table = self.write("adj.json", json.dumps({"adjudications": [
            {"model": "offline", "question_id": first["question_id"], "label": "ABSTAIN"}]}))
        plain = run_cli("score", records, "--bootstrap", 0).json()
        judged = run_cli("score", records, "--bootstrap", 0, "--adjudication", table).json()
        self.assertEqual(judged["adjudication"]["path"], table)
        counts = [s["scores"]["offline"]["overall"]["response_distribution"]["ABSTAIN"]
                  for s in (plain["ehq"], judged["ehq"])]
        self.assertEqual(counts[1] - counts[0], 0 if first["classification"]["label"] ==
                         "ABSTAIN" else 1)

    def test_compare_results_reach_stdout_report_and_csv(self):
        registry = self.write("models.json", json.dumps([{
            "name": "twin", "provider": "offline", "provider_model": "offline-simulated-1",
            "pcq_eligible": True, "pcq_cutoff": "2024-06-30"}]))
        result, folder = offline_run(self, "--registry", registry, "--model", "offline,twin",
                                     "--compare", "offline,twin", "--bootstrap", 100)
        self.assertIn("compare offline - twin: EHQ 0.0000", result.out)
        self.assertIn("## Comparisons", read(folder, "report.md"))
        rows = list(csv.DictReader(io.StringIO(read(folder, "comparisons.csv"))))
        self.assertEqual([r["component"] for r in rows], ["EHQ1", "EHQ2", "EHQ3", "EHQ"])

    def test_score_and_summary_use_the_same_keys(self):
        result, folder = offline_run(self, "--limit", 8, "--bootstrap", "0")
        summary = ehq_ref.load_json_file(os.path.join(folder, "summary.json"))
        scored = run_cli("score", os.path.join(folder, "records.jsonl"), "--bootstrap", 0).json()
        for key in ("settings", "models", "scores", "selective", "comparisons",
                    "classifier_sensitivity"):
            self.assertIn(key, summary)
            self.assertIn(key, scored["ehq"])
        self.assertEqual(scored["ehq"]["models"][0]["EHQ"], summary["models"][0]["EHQ"])

    def test_options_that_do_nothing_say_so(self):
        result, folder = offline_run(self, "--idk-frac", "0.5", "--limit", 4)
        self.assertIn("--idk-frac does nothing here: no item has options", result.out)


class SelfContainedRecordsTest(TempDirTestCase):
    def test_a_record_reads_alone_and_a_cut_answer_keeps_its_text(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        from fake_provider import Reply, chat_success
        server.rule = lambda body, index: Reply(200, chat_success(
            "The answer is probably", finish="length")) if index == 0 else None
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False}]}))
        result = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="c", progress="quiet", bootstrap=0, env_file=None,
            use_cache=False, registry=registry, models=("local",), limit=3, categories="HNQ"))
        records = [json.loads(l) for l in read(result["run_dir"], "records.jsonl").splitlines()]
        cut = [r for r in records if r["exclusion_reason"] == "truncated"][0]
        self.assertEqual(cut["answer_text"], "The answer is probably")
        answered = [r for r in records if r["classification"]][0]
        item = {it["question_id"]: it for it in ehq_ref.EXAMPLE_ITEMS}[answered["question_id"]]
        self.assertEqual(answered["question"], item["question"])
        self.assertEqual(answered["gold"], ehq_ref.gold_answers(item))
        self.assertEqual(answered["prompt"], ehq_ref.answer_prompt(item))
        self.assertIn(answered["answer_text"].strip(), answered["confidence_prompt"])
        self.assertEqual(set(answered["classifications"]), set(ehq_ref.CLASSIFIERS))
        hidden = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="h", progress="quiet", bootstrap=0, env_file=None,
            limit=3, no_text=True))
        plain = [json.loads(l) for l in read(hidden["run_dir"], "records.jsonl").splitlines()]
        self.assertTrue(all("question" not in r and r["question_sha256"] for r in plain))

    def test_few_readable_confidences_are_flagged(self):
        server = FakeProvider("chat", responder=lambda body: "quite sure" if "confidence" in
                              json.dumps(body).lower() else "It was Mikhail Bulgakov.")
        self.addCleanup(server.close)
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "local-model",
            "base_url": server.base_url, "requires_api_key": False}]}))
        result = ehq_ref.run_evaluation(ehq_ref.RunOptions(
            output=self.path("runs"), run_id="f", progress="quiet", bootstrap=0, env_file=None,
            use_cache=False, registry=registry, models=("local",), limit=8, categories="HNQ"))
        row = result["summary"]["models"][0]
        self.assertEqual((row["n_ehq3_calibration"], row["confident_coverage"]), (0, 0.0))
        self.assertIn("EHQ3 and EHQ are undefined", row["warnings"][0])
        self.assertIn("conf.cov", ehq_ref.format_run_table(result["summary"]))

    def test_the_eta_counts_only_work_still_to_be_requested(self):
        clock = ehq_ref.SystemClock()
        progress = ehq_ref.Progress("quiet", {"answer": 3}, clock)
        cached = {"kind": "answer", "k": 0, "classification": {"label": "ABSTAIN"},
                  "answer_response": {"cache_hit": True, "attempts": 1}}
        self.assertIsNone(progress.step(cached)["eta_seconds"])  # cache hits tell no rate


class FigureLayoutTest(TempDirTestCase):
    """No text leaves the picture and no two texts overlap, for 1, 2 and 6 models."""

    def summary(self, count):
        names = [f"model-{i}-with-a-rather-long-name-for-{'x' * (i * 7)}" for i in range(count)]
        rows, scores, selective, targets = [], {}, {}, {}
        for index, name in enumerate(names):
            base = 0.2 + 0.1 * index
            rows.append(dict(model=name, rank=index + 1, n_valid_ehq12=40, notes={}, **{
                f"{n}{s}": v for n in ("EHQ1", "EHQ2", "EHQ3", "EHQ")
                for s, v in (("", base), ("_low", base - 0.05), ("_high", base + 0.05))}))
            bins = [{"bin": b, "count": 3 + b, "mean_confidence": b / 10 + 0.05,
                     "accuracy": min(1.0, b / 10 + 0.02 * index)} for b in range(10)]
            scores[name] = {"overall": {"calibration": {"ece": 0.1, "bins": bins}}}
            selective[name] = {"aurc": 0.2, "risk_coverage": [
                {"threshold": t / 10, "coverage": t / 10, "risk": 0.3 - t / 50,
                 "answered": 4 * t, "errors": t} for t in range(1, 11)]}
            targets[name] = {"targets": [
                {"target": t, "coverage": 1 - t / 2, "n": 40, "answered": int(40 * (1 - t / 2)),
                 "accuracy": 0.5 + t / 3, "accuracy_low": 0.4, "accuracy_high": 0.9,
                 "expected_score": 0.1} for t in (0.5, 0.75, 0.9)]}
        return {"models": rows, "scores": scores, "selective": selective, "targets": targets,
                "settings": {"risk": 0.1, "confidence": 0.95}}

    def boxes(self, svg):
        root = ET.fromstring(svg)
        width, height = (float(v) for v in root.get("viewBox").split()[2:])
        found = []
        for text in root.iter(SVG + "text"):
            size, content = float(text.get("font-size")), text.text or ""
            w = 0.6 * size * len(content)
            x, y, anchor = float(text.get("x")), float(text.get("y")), text.get("text-anchor")
            left = x - w / 2 if anchor == "middle" else x - w if anchor == "end" else x
            found.append((content, (left, y - size, left + w, y + 0.25 * size)))
        return width, height, found

    def test_every_figure_for_1_2_and_6_models(self):
        for count in (1, 2, 6):
            summary = self.summary(count)
            for name, draw in (("risk", ehq_ref.risk_coverage_svg),
                               ("reliability", ehq_ref.reliability_svg),
                               ("components", ehq_ref.components_svg),
                               ("targets", ehq_ref.targets_svg)):
                width, height, boxes = self.boxes(draw(summary))
                for content, (left, top, right, bottom) in boxes:
                    self.assertTrue(left >= 0 and top >= 0 and right <= width and
                                    bottom <= height, (count, name, content))
                for i, (a, box_a) in enumerate(boxes):
                    for b, box_b in boxes[i + 1:]:
                        overlap = box_a[0] < box_b[2] and box_b[0] < box_a[2] and \
                            box_a[1] < box_b[3] and box_b[1] < box_a[3]
                        self.assertFalse(overlap, (count, name, a, b))

    def test_identical_models_stay_visible_and_figures_have_their_data(self):
        summary = self.summary(2)
        second = summary["models"][1]["model"]
        summary["selective"][second] = summary["selective"][summary["models"][0]["model"]]
        root = ET.fromstring(ehq_ref.risk_coverage_svg(summary))
        first, again = [[c.get("cx") for c in g if c.tag == SVG + "circle"]
                        for g in root.iter(SVG + "g") if g.get("class") == "series"]
        self.assertNotEqual(first, again)
        result, folder = offline_run(self, "--limit", 8, "--target", "0.5")
        for stem in ("risk_coverage", "reliability", "ehq_components", "targets"):
            rows = list(csv.DictReader(io.StringIO(read(folder, "figures", f"{stem}.csv"))))
            self.assertTrue(rows, stem)


class MarkdownReportTest(TempDirTestCase):
    def test_every_table_row_has_its_header_columns_and_nothing_else_sits_in_a_table(self):
        registry = self.write("models.json", json.dumps([{
            "name": "pipes|and*stars", "provider": "offline",
            "provider_model": "offline-simulated-1"}]))
        result, folder = offline_run(self, "--registry", registry, "--model",
                                     "offline,pipes|and*stars", "--target", "0.5,0.9",
                                     "--judge", "offline", "--compare", "offline,pipes|and*stars")
        self.assertEqual(result.code, 0, result.err)
        lines = read(folder, "report.md").splitlines()
        columns = None
        for number, line in enumerate(lines):
            cells = len(re.findall(r"(?<!\\)\|", line)) - 1
            if line.startswith("|"):
                if columns is None:
                    columns = cells
                    self.assertTrue(lines[number + 1].startswith("|---"), line)
                self.assertEqual(cells, columns, line)
            else:
                columns = None
                if number and lines[number - 1].startswith("|"):
                    self.assertEqual(line, "", "a table must end with a blank line")
        for section in ("## Warnings", "## Exclusions and failures", "## Usage and cost",
                        "## Comparisons", "## Judge", "## Example answers"):
            self.assertIn(section, lines)
        self.assertNotRegex("\n".join(lines), r"\b(True|False|None)\b")


class IdentityCheckTest(TempDirTestCase):
    """A strict identity policy on a server that echoes any model name is unverifiable."""

    def run_strict(self, named):
        from fake_provider import Reply, chat_success
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        server.rule = lambda body, index: Reply(200, chat_success("85", model=named(body)))
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "llama-3-8b",
            "base_url": server.base_url, "requires_api_key": False,
            "model_identity_policy": "strict"}]}))
        result = run_cli("run", "--registry", registry, "--model", "local", "--limit", 4,
                         "--output", self.path("runs"), "--run-id", "r", "--quiet", "--no-cache",
                         "--env-file", self.path("none"), "--bootstrap", 0)
        self.assertEqual(result.code, 0, result)
        manifest = ehq_ref.load_json_file(self.path("runs", "r", "manifest.json"))
        summary = ehq_ref.load_json_file(self.path("runs", "r", "summary.json"))
        probes = [b["model"] for b in server.bodies()
                  if b["model"] == ehq_ref.IDENTITY_PROBE_MODEL]
        return result, manifest["identity_checks"]["local"], summary["warnings"], probes

    def test_an_echoing_server_is_reported_unverifiable_everywhere(self):
        result, check, warnings, probes = self.run_strict(lambda body: body["model"])
        self.assertIs(check["identity_discriminating"], False)
        self.assertEqual(probes, [ehq_ref.IDENTITY_PROBE_MODEL])
        self.assertEqual(len([w for w in warnings if "identity is unverifiable" in w]), 1)
        self.assertIn("route local: model identity is unverifiable, not passed", result.out)
        self.assertIn("identity is unverifiable",
                      read(self.path("runs", "r"), "report.md"))

    def test_a_server_naming_its_own_model_passes_without_a_warning(self):
        _, check, warnings, probes = self.run_strict(lambda body: "llama-3-8b-instruct-q4")
        self.assertIs(check["identity_discriminating"], True)
        self.assertEqual(probes, [])  # the reply named a snapshot: no probe needed
        self.assertFalse([w for w in warnings if "identity" in w])
