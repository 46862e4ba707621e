"""run --epochs K: every item asked K times, each epoch a distinct seeded draw; scores pool the
epochs, intervals resample items then epochs, and the summary says how stable the labels are."""

import itertools
import json
import os

from fake_provider import FakeProvider
from support import EXAMPLES, TempDirTestCase, ehq_ref, run_cli
from test_cli import tree


def records_of(folder, name="records.jsonl"):
    with open(os.path.join(folder, name), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


class EpochRunTest(TempDirTestCase):
    def run_offline(self, output, *extra, run_id="r"):
        result = run_cli("run", "--output", self.path(output), "--run-id", run_id,
                         "--reproducible", "--quiet", "--bootstrap", "200", *extra)
        self.assertEqual(result.code, 0, result)
        return self.path(output, run_id), result

    def test_one_epoch_is_byte_identical_to_no_epochs(self):
        plain, _ = self.run_offline("plain")
        one, _ = self.run_offline("one", "--epochs", "1")
        self.assertEqual(tree(plain), tree(one))
        with open(os.path.join(one, "records.jsonl"), encoding="utf-8") as handle:
            self.assertNotIn("epoch", handle.read())

    def test_three_epochs_records_consistency_and_intervals(self):
        folder, result = self.run_offline("three", "--epochs", "3")
        records = records_of(folder)
        self.assertEqual(len(records), 3 * len(ehq_ref.EXAMPLE_ITEMS))
        first = records[:3]
        self.assertEqual([(r["question_id"], r["epoch"], r["seed"]) for r in first],
                         [(first[0]["question_id"], e, e) for e in range(3)])
        answers = {}
        for record in records:
            if ehq_ref.answer_status(record) == "answered":
                answers.setdefault(record["question_id"], []).append(
                    record["classification"]["label"])
        stable = [len(set(labels)) == 1 for labels in answers.values() if len(labels) >= 2]
        shares = [sum(a != b for a, b in itertools.combinations(labels, 2)) /
                  len(list(itertools.combinations(labels, 2)))
                  for labels in answers.values() if len(labels) >= 2]
        summary = ehq_ref.load_json_file(os.path.join(folder, "summary.json"))
        block = summary["epochs"]["offline"]
        self.assertEqual(block["epochs"], 3)
        self.assertEqual(block["items"], len(stable))
        self.assertAlmostEqual(block["same_label"], sum(stable) / len(stable), places=12)
        self.assertAlmostEqual(block["label_disagreement"], sum(shares) / len(shares), places=12)
        self.assertGreater(block["label_disagreement"], 0)  # the offline epochs do differ
        self.assertIn("3 epochs: the same label in every epoch on", result.out)
        self.assertIn("Wilson intervals of EHQ1 and EHQ2 count every epoch", result.out)
        scores = summary["scores"]["offline"]["overall"]
        self.assertEqual(scores["n_valid_ehq12"], sum(len(v) for v in answers.values()))
        boot = scores["intervals"]["bootstrap"]["EHQ"]
        self.assertLess(boot["low"], scores["EHQ"])
        self.assertLess(scores["EHQ"], boot["high"])
        self.assertTrue(ehq_ref.verify_run(folder)["valid"])
        status = ehq_ref.run_status(folder)
        self.assertEqual(status["models"]["offline"]["answer"]["expected"], len(records))

    def test_a_resumed_epoch_run_equals_an_uninterrupted_one(self):
        whole, _ = self.run_offline("whole", "--epochs", "2")
        cut, _ = self.run_offline("cut", "--epochs", "2")
        path = os.path.join(cut, "records.jsonl")
        with open(path, encoding="utf-8") as handle:
            lines = handle.readlines()
        with open(path, "w", encoding="utf-8") as handle:
            handle.writelines(lines[:len(lines) // 2])
        os.remove(os.path.join(cut, "summary.json"))
        result = run_cli("run", "--output", self.path("cut"), "--resume", "r", "--quiet")
        self.assertEqual(result.code, 0, result)
        with open(os.path.join(whole, "summary.json"), "rb") as a, \
                open(os.path.join(cut, "summary.json"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        refused = run_cli("run", "--output", self.path("cut"), "--resume", "r", "--epochs", "3")
        self.assertEqual(refused.code, 2)
        self.assertIn("epochs", refused.err)

    def test_epoch_shards_merge_to_the_unsharded_summary(self):
        whole, _ = self.run_offline("whole", "--epochs", "2")
        shards = [self.run_offline("parts", "--epochs", "2", "--shard", f"{k}/2",
                                   run_id=f"s{k}")[0] for k in (1, 2)]
        result = run_cli("merge", *shards, "--output", self.path("merged"))
        self.assertEqual(result.code, 0, result)
        merged = ehq_ref.load_json_file(self.path("merged", "summary.json"))
        alone = ehq_ref.load_json_file(os.path.join(whole, "summary.json"))
        self.assertEqual(merged["epochs"], alone["epochs"])
        self.assertEqual(merged["scores"], alone["scores"])

    def test_epochs_with_adjudication_or_an_export_are_refused(self):
        adjudication = self.write("adj.json", json.dumps({"offline::HNQ-GEO-001": "ABSTAIN"}))
        result = run_cli("run", "--output", self.path("runs"), "--epochs", "2",
                         "--adjudication", adjudication, "--quiet")
        self.assertEqual(result.code, 2)
        self.assertIn("--adjudication labels one answer per model and item", result.err)
        folder, _ = self.run_offline("runs", "--epochs", "2", run_id="e")
        result = run_cli("export", folder, "--format", "inspect", "--output", self.path("x"))
        self.assertEqual(result.code, 2)
        self.assertIn("several answers per item", result.err)

    def test_paired_comparison_with_epochs(self):
        registry = os.path.join(EXAMPLES, "models.json")
        folder, result = self.run_offline("pair", "--epochs", "2", "--registry", registry,
                                          "--model", "offline,offline-demo", "--compare",
                                          "offline,offline-demo", "--env-file",
                                          self.path("none"))
        summary = ehq_ref.load_json_file(os.path.join(folder, "summary.json"))
        difference = summary["comparisons"][0]["difference"]["EHQ"]
        self.assertLessEqual(difference["low"], difference["high"])
        self.assertEqual(set(summary["epochs"]), {"offline", "offline-demo"})


class EpochRequestTest(TempDirTestCase):
    def test_each_epoch_sends_its_own_seed_and_has_its_own_cache_entry(self):
        server = FakeProvider("chat")
        self.addCleanup(server.close)
        registry = self.write("models.json", json.dumps({"models": [{
            "name": "local", "provider": "openai_compatible", "provider_model": "m",
            "base_url": server.base_url, "requires_api_key": False, "seed": 7}]}))
        args = ("run", "--registry", registry, "--model", "local", "--limit", "3", "--epochs",
                "2", "--output", self.path("runs"), "--quiet", "--cache-dir", self.path("cache"),
                "--env-file", self.path("none"), "--bootstrap", "0", "--category", "HNQ")
        self.assertEqual(run_cli(*args, "--run-id", "a").code, 0)
        seeds = sorted(b["seed"] for b in server.bodies())
        self.assertEqual(seeds, [7] * 6 + [8] * 6)  # 3 items x (answer + confidence) per epoch
        self.assertEqual(run_cli(*args, "--run-id", "b").code, 0)
        self.assertEqual(len(server.requests), 12)  # the second run is served from the cache
        records = records_of(self.path("runs", "b"))
        self.assertEqual(sorted(r["seed"] for r in records), [7, 7, 7, 8, 8, 8])


class TwoStageBootstrapTest(TempDirTestCase):
    @staticmethod
    def cells(vary):
        """Two strata of three clusters, each one item with two epochs of one answer each."""
        cells = {}
        for stratum in ("HNQ::A", "HNQ::B"):
            cells[stratum] = {}
            for index in range(3):
                cluster = ehq_ref.EpochCluster()
                restrained = index % 2
                cluster[f"{stratum}-{index}"] = {
                    0: [1, restrained, 1 - restrained, []],
                    1: [1, 1 - restrained if vary else restrained,
                        restrained if vary else 1 - restrained, []]}
                cells[stratum][f"c{index}"] = cluster
        return cells

    def test_the_second_stage_draws_the_epochs_of_each_item(self):
        steady = ehq_ref.bootstrap_ehq(self.cells(False), samples=2000, seed=3)
        varying = ehq_ref.bootstrap_ehq(self.cells(True), samples=2000, seed=3)
        width = {name: block["overall"]["EHQ1"]["high"] - block["overall"]["EHQ1"]["low"]
                 for name, block in (("steady", steady), ("varying", varying))}
        self.assertLess(width["varying"], width["steady"])  # opposite epochs average out
        cluster = self.cells(False)["HNQ::A"]["c0"]
        packing = ehq_ref._Packing([self.cells(False)], 10)
        packed = packing.pack_cluster(cluster)
        self.assertEqual(packing.scores(packed.whole(), 1, ehq_ref.DEFAULT_EHQ_WEIGHTS)[:2],
                         (0.0, 0.0))  # two unrestrained, wrong answers

    def test_a_cluster_with_and_without_epochs_is_refused(self):
        scorer = ehq_ref.EHQScorer(ehq_ref.ScoringSettings(bootstrap=10))
        row = ehq_ref.ScoreRow("m", "q", "HNQ", "HNQ-A", "c", ehq_ref.Label.ABSTAIN, False, None,
                               0, False)
        scorer.add(row, "$[0]")
        with self.assertRaises(ehq_ref.InputError):
            scorer.add(row._replace(item="q2", epoch=0), "$[1]")
