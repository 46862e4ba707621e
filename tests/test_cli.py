"""The command line: help, exit codes, one-line errors, score/sweep/log, the seeded demo."""

import json
import os
import unittest
import warnings

from support import EXAMPLES, ROOT, TempDirTestCase, ehq_ref, run_cli, run_process


def tree(folder):
    """{relative path: bytes} of every file below ``folder``."""
    files = {}
    for base, _, names in os.walk(folder):
        for name in names:
            full = os.path.join(base, name)
            with open(full, "rb") as handle:
                files[os.path.relpath(full, folder).replace(os.sep, "/")] = handle.read()
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
        self.assertAlmostEqual(report["chi"]["chi"], 100 * (0.71 * 0.66 * 0.80 * 0.62 * 0.55)**0.2,
                               delta=1e-12)
        self.assertEqual(report["q_m"]["lure"],
                         {"n_lures": 10, "f": 0.4, "f_raw": 0.2, "invalid_rate": 0.2})
        self.assertAlmostEqual(report["q_m"]["q_m"],
                               (0.91 * 0.88 * 0.93 * 0.86 * 0.90 * 0.6)**(1 / 6), delta=1e-12)

    def test_capacities_only_gives_null_chi(self):
        target = self.write("c.json", json.dumps({"capacities": [0.5] * 5}))
        block = run_cli("score", target).json()["chi"]
        self.assertIsNone(block["chi"])
        self.assertIn("capacities alone never produce a CHI", block["note"])

    def test_zero_axis(self):
        target = self.write(
            "z.json",
            json.dumps({
                "capacities": [0.5] * 5, "human_similarity": [1, 1, 0, 1, 1],
                "reference_kind": "human-reference"
            }))
        self.assertEqual(run_cli("score", target).json()["chi"]["chi"], 0.0)

    def test_bad_inputs_are_one_line_naming_file_and_path(self):
        cases = [
            ('{"capacities": {"R": true, "M": 1, "C": 1, "A": 1, "I": 1}}',
             "$.capacities.R: expected a number in [0, 1], got true"),
            ('{"capacities": {"R": 1, "M": 1, "C": 1, "A": 1, "I": 1, "I": 0}}',
             '$.capacities.I: duplicate key "I"'),
            ('{"capacities": {"R": NaN, "M": 1, "C": 1, "A": 1, "I": 1}}',
             "$.capacities.R: NaN is not allowed"),
            ('{"capacities": [1, 1, 1, 1, 1], "colour": 1}', "$: unknown field 'colour'"),
            ('{"factors": {"r": 0.9}, "lure_outcomes": {"abstained": 1, "unsupported": 0, '
             '"invalid": 0, "x": 1}}',
             "$.lure_outcomes: unknown field 'x'"),
        ]
        for text, message in cases:
            target = self.write("bad.json", text)
            result = run_cli("score", target)
            self.assertEqual(result.code, 2, text)
            self.assertEqual(result.err,
                             f"ehq_ref: {target}: {message}" + result.err.split(message, 1)[1])
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
        self.assertEqual((result["eimc"], result["status"], result["passing"]),
                         (4, "largest_passing_tested", [1, 2, 4]))

    def test_non_canonical_load_keys(self):
        for key in ["01", "+1", " 1", "١", "0"]:
            target = self.write("s.json", json.dumps({"scores": {key: 0.9}}, ensure_ascii=False))
            result = run_cli("sweep", target)
            self.assertEqual(result.code, 2, key)
            self.assertIn("load keys must be canonical positive integers", result.err)

    def test_log_appends_a_chained_event(self):
        output = self.path("events.jsonl")
        for _ in range(2):
            self.assertEqual(
                run_cli("log", os.path.join(EXAMPLES, "event.json"), "--output", output).code, 0)
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
        summary = ehq_ref.demo(self.path("d"), seed=42, samples=200)["chi"]
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
        ehq_ref.write_chi_demo(self.path("a"), seed=1, samples=50)
        ehq_ref.write_chi_demo(self.path("b"), seed=2, samples=50)
        first, second = tree(self.path("a")), tree(self.path("b"))
        for name in ("config.json", "summary.json", "trajectory.jsonl"):
            self.assertNotEqual(first[name], second[name], name)


if __name__ == "__main__":
    unittest.main()


class ScoreRecordsTest(TempDirTestCase):
    def setUp(self):
        super().setUp()
        from test_aggregates import HAND
        self.hand = HAND

    def test_json_array_and_records_object_and_jsonl_agree(self):
        array = self.write("r.json", json.dumps(self.hand))
        wrapped = self.write("w.json", json.dumps({"records": self.hand}))
        lines = self.write("r.jsonl", "".join(json.dumps(r) + "\n" for r in self.hand))
        values = []
        for target in (array, wrapped, lines):
            result = run_cli("score", target, "--bootstrap", 0)
            self.assertEqual(result.code, 0, result.err)
            values.append(result.json()["ehq"]["scores"]["model"]["overall"]["EHQ"])
        self.assertEqual(values, [values[0]] * 3)
        self.assertAlmostEqual(values[0], 0.5508333333333333, delta=1e-12)

    def test_jsonl_errors_name_the_line(self):
        lines = [json.dumps(r) for r in self.hand[:3]]
        lines[1] = lines[1].replace('"HEDGE"', '"MAYBE"')
        target = self.write("bad.jsonl", "\n".join(lines) + "\n")
        result = run_cli("score", target)
        self.assertEqual(result.code, 2)
        self.assertIn(f"{target}: line 2: $.label: expected one of ABSTAIN", result.err)

    def test_jsonl_torn_last_line(self):
        target = self.write("torn.jsonl",
                            json.dumps(self.hand[0]) + "\n" + json.dumps(self.hand[1])[:20])
        result = run_cli("score", target)
        self.assertEqual(result.code, 2)
        self.assertIn("line 2: torn last line", result.err)

    def test_scoring_flags(self):
        target = self.write("r.json", json.dumps(self.hand))
        report = run_cli("score", target, "--closed", "right", "--n-bins", 15, "--bootstrap", 50,
                         "--bootstrap-seed", 9, "--weights", "0.5,0.25,0.25").json()["ehq"]
        self.assertEqual((report["settings"]["closed"], report["settings"]["n_bins"]),
                         ("right", 15))
        self.assertEqual(report["settings"]["bootstrap"]["seed"], 9)
        self.assertEqual(report["settings"]["weights"], {"EHQ1": 0.5, "EHQ2": 0.25, "EHQ3": 0.25})
        bad = run_cli("score", target, "--weights", "0.5,0.5,0.5")
        self.assertEqual(bad.code, 2)
        self.assertIn("weights must sum to 1", bad.err)

    def test_compare_flag(self):
        rows = self.hand + [dict(r, model="other") for r in self.hand[:10]]
        target = self.write("r.json", json.dumps(rows))
        report = run_cli("score", target, "--bootstrap", 20, "--compare",
                         "model,other").json()["ehq"]
        self.assertEqual(report["comparisons"][0]["difference"]["EHQ"]["estimate"], 0.0)


class LineLengthTest(unittest.TestCase):
    PATHS = [os.path.join(ROOT, "ehq_ref.py")] + sorted(
        os.path.join(ROOT, "tests", name) for name in os.listdir(os.path.join(ROOT, "tests"))
        if name.endswith(".py"))

    def test_the_kit_and_its_tests_compile_without_a_warning(self):
        # an invalid escape such as "\w" in a plain string is a SyntaxWarning from 3.12 on,
        # printed before the kit's own one-line errors
        for path in self.PATHS:
            with open(path, encoding="utf-8") as handle:
                source = handle.read()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                compile(source, path, "exec")

    def test_no_line_of_the_kit_or_its_tests_is_longer_than_100_characters(self):
        paths = self.PATHS
        long = []
        for path in paths:
            with open(path, encoding="utf-8") as handle:
                long += [f"{os.path.basename(path)}:{number}"
                         for number, line in enumerate(handle, start=1)
                         if len(line.rstrip("\n")) > 100]
        self.assertEqual(long, [])
