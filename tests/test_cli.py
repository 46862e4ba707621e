"""The command line: help, exit codes, one-line errors, score/sweep/log, the seeded demo."""

import json
import os
import unittest

from support import EXAMPLES, ROOT, TempDirTestCase, ehq_ref, run_cli, run_process


def tree(folder):
    """{relative path: bytes} of every file below ``folder``."""
    files = {}
    for base, _, names in os.walk(folder):
        for name in names:
            full = os.path.join(base, name)
            with open(full, "rb") as handle:
                files[os.path.relpath(full, folder)] = handle.read()
    return files


class HelpAndVersionTest(unittest.TestCase):
    def test_version(self):
        result = run_process("--version")
        self.assertEqual((result.code, result.out.strip()), (0, f"ehq_ref {ehq_ref.__version__}"))

    def test_every_subcommand_has_help_with_an_example(self):
        for name in ehq_ref.COMMANDS:
            result = run_cli(name, "--help")
            self.assertEqual(result.code, 0, name)
            self.assertIn("example:\n  python ehq_ref.py " + name, result.out)

    def test_usage_error_is_one_line_exit_2(self):
        result = run_cli("sweep")
        self.assertEqual(result.code, 2)
        self.assertEqual(len(result.err.strip().splitlines()), 1)
        self.assertIn("the following arguments are required: file", result.err)

    def test_no_command_exits_2(self):
        self.assertEqual(run_cli().code, 2)


class ScoreChiTest(TempDirTestCase):
    def test_example_score(self):
        report = run_cli("score", os.path.join(EXAMPLES, "score.json")).json()
        self.assertAlmostEqual(report["chi"]["chi"], 100 * (0.71 * 0.66 * 0.80 * 0.62 * 0.55) ** 0.2, delta=1e-12)
        self.assertEqual(report["q_m"]["lure"], {"n_lures": 10, "f": 0.4, "f_raw": 0.2, "invalid_rate": 0.2})
        self.assertAlmostEqual(report["q_m"]["q_m"], (0.91 * 0.88 * 0.93 * 0.86 * 0.90 * 0.6) ** (1 / 6), delta=1e-12)

    def test_capacities_only_gives_null_chi(self):
        target = self.write("c.json", json.dumps({"capacities": [0.5] * 5}))
        block = run_cli("score", target).json()["chi"]
        self.assertIsNone(block["chi"])
        self.assertIn("capacities alone never produce a CHI", block["note"])

    def test_zero_axis(self):
        target = self.write("z.json", json.dumps({"capacities": [0.5] * 5, "human_similarity": [1, 1, 0, 1, 1],
                                                  "reference_kind": "human-reference"}))
        self.assertEqual(run_cli("score", target).json()["chi"]["chi"], 0.0)

    def test_bad_inputs_are_one_line_naming_file_and_path(self):
        cases = [
            ('{"capacities": {"R": true, "M": 1, "C": 1, "A": 1, "I": 1}}',
             "$.capacities.R: expected a number in [0, 1], got true"),
            ('{"capacities": {"R": 1, "M": 1, "C": 1, "A": 1, "I": 1, "I": 0}}', '$.capacities.I: duplicate key "I"'),
            ('{"capacities": {"R": NaN, "M": 1, "C": 1, "A": 1, "I": 1}}', "$.capacities.R: NaN is not allowed"),
            ('{"capacities": [1, 1, 1, 1, 1], "colour": 1}', "$: unknown field 'colour'"),
            ('{"factors": {"r": 0.9}, "lure_outcomes": {"abstained": 1, "unsupported": 0, "invalid": 0, "x": 1}}',
             "$.lure_outcomes: unknown field 'x'"),
        ]
        for text, message in cases:
            target = self.write("bad.json", text)
            result = run_cli("score", target)
            self.assertEqual(result.code, 2, text)
            self.assertEqual(result.err, f"ehq_ref: {target}: {message}" + result.err.split(message, 1)[1])
            self.assertEqual(len(result.err.splitlines()), 1)

    def test_missing_file(self):
        result = run_cli("score", self.path("nope.json"))
        self.assertEqual(result.code, 2)
        self.assertIn("nope.json: cannot read file: No such file or directory", result.err)

    def test_a_traceback_never_reaches_the_user(self):
        target = self.write("bad.json", '{"capacities": "high"}')
        result = run_process("score", target)
        self.assertEqual(result.code, 2)
        self.assertNotIn("Traceback", result.err)


class SweepAndLogTest(TempDirTestCase):
    def test_example_sweep(self):
        result = run_cli("sweep", os.path.join(EXAMPLES, "sweep.json")).json()
        self.assertEqual((result["eimc"], result["status"], result["passing"]), (4, "largest_passing_tested", [1, 2, 4]))

    def test_non_canonical_load_keys(self):
        for key in ["01", "+1", " 1", "١", "0"]:
            target = self.write("s.json", json.dumps({"scores": {key: 0.9}}, ensure_ascii=False))
            result = run_cli("sweep", target)
            self.assertEqual(result.code, 2, key)
            self.assertIn("load keys must be canonical positive integers", result.err)

    def test_log_appends_a_chained_event(self):
        output = self.path("events.jsonl")
        for _ in range(2):
            self.assertEqual(run_cli("log", os.path.join(EXAMPLES, "event.json"), "--output", output).code, 0)
        report = run_cli("verify-log", output).json()
        self.assertEqual((report["valid"], report["records"]), (True, 2))

    def test_log_rejects_string_synthetic_and_keeps_the_file(self):
        output = self.path("events.jsonl")
        run_cli("log", os.path.join(EXAMPLES, "event.json"), "--output", output)
        with open(output, "rb") as handle:
            before = handle.read()
        with open(os.path.join(EXAMPLES, "event.json")) as handle:
            event = json.load(handle)
        event["synthetic"] = "false"
        result = run_cli("log", self.write("e.json", json.dumps(event)), "--output", output)
        self.assertEqual(result.code, 2)
        self.assertIn('$.synthetic: expected true or false, got "false"', result.err)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(), before)


class DemoTest(TempDirTestCase):
    def test_regenerated_demo_equals_committed_demo_byte_for_byte(self):
        result = run_process("demo", "--seed", "42", "--output", self.path("demo"), cwd=ROOT)
        self.assertEqual(result.code, 0, result.err)
        committed, fresh = tree(os.path.join(ROOT, "demo")), tree(self.path("demo"))
        self.assertEqual(sorted(committed), sorted(fresh))
        for name in committed:
            self.assertEqual(committed[name], fresh[name], name)

    def test_demo_shape_and_config_hash(self):
        summary = ehq_ref.demo(self.path("d"), seed=42, samples=200)
        config = ehq_ref.load_json_file(self.path("d", "config.json"))
        self.assertEqual(summary["config_hash"], ehq_ref.hash_value(config))
        trajectory = ehq_ref.verify_log(self.path("d", "trajectory.jsonl"))
        self.assertEqual((trajectory["valid"], trajectory["records"]), (True, 40))
        with open(self.path("d", "trajectory.jsonl")) as handle:
            events = [json.loads(line) for line in handle]
        self.assertEqual({e["config_hash"] for e in events}, {summary["config_hash"]})
        self.assertEqual({e["reference_kind"] for e in events}, {"synthetic-demo-only"})
        self.assertEqual(len({e["run"] for e in events}), 8)
        self.assertEqual([load["n"] for load in summary["sweep"]["loads"]], [1, 2, 4, 8, 16])
        low, high = summary["chis"]["interval"]["low"], summary["chis"]["interval"]["high"]
        self.assertLess(low, summary["chis"]["chi"])
        self.assertLess(summary["chis"]["chi"], high)

    def test_two_seeds_give_different_files(self):
        ehq_ref.demo(self.path("a"), seed=1, samples=50)
        ehq_ref.demo(self.path("b"), seed=2, samples=50)
        first, second = tree(self.path("a")), tree(self.path("b"))
        for name in ("config.json", "summary.json", "trajectory.jsonl"):
            self.assertNotEqual(first[name], second[name], name)


if __name__ == "__main__":
    unittest.main()
