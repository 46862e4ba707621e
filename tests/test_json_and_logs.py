"""Strict JSON, canonical hashing, atomic writes and the hash-chained JSONL log."""

import contextlib
import io
import json
import os
import subprocess
import sys
import unittest

from support import ROOT, TempDirTestCase, ehq_ref, run_cli

InputError = ehq_ref.InputError


class StrictJSONTest(unittest.TestCase):
    def assertRejects(self, text, path, fragment):
        with self.assertRaises(InputError) as caught:
            ehq_ref.loads_strict(text, source="in.json")
        self.assertEqual(caught.exception.path, path)
        self.assertIn(fragment, caught.exception.message)
        self.assertTrue(
            str(caught.exception).startswith(f"in.json: {path}: " if path else "in.json: "))

    def test_duplicate_key_named_with_its_path(self):
        self.assertRejects('{"a": {"b": [1, {"R": 1, "R": 2}]}}', "$.a.b[1].R", 'duplicate key "R"')

    def test_duplicate_key_with_odd_name_is_quoted(self):
        self.assertRejects('{"x y": 1, "x y": 2}', '$["x y"]', 'duplicate key "x y"')

    def test_nan_and_infinity_literals_rejected(self):
        self.assertRejects('{"v": NaN}', "$.v", "NaN is not allowed")
        self.assertRejects('[1, Infinity]', "$[1]", "Infinity is not allowed")
        self.assertRejects('{"v": [-Infinity]}', "$.v[0]", "-Infinity is not allowed")

    def test_overflowing_number_rejected(self):
        self.assertRejects('{"v": 1e400}', "$.v", "out of range")

    def test_syntax_error_names_line_and_column(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.loads_strict('{\n "a": 1,\n}', source="f.json")
        # the parser's own wording changes between Python versions; the place is ours to report
        self.assertRegex(str(caught.exception),
                         r"^f\.json: invalid JSON: .+ \(line [23], column \d+\)$")
        with self.assertRaises(InputError) as caught:
            ehq_ref.loads_strict('[1, 2', source="g.json")
        self.assertRegex(str(caught.exception), r"^g\.json: invalid JSON: .+ \(line 1, column 6\)$")

    def test_valid_json_round_trips(self):
        self.assertEqual(ehq_ref.loads_strict('{"a": [1, 2.5, true, null, "é"]}'),
                         {"a": [1, 2.5, True, None, "é"]})

    def test_non_utf8_file(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.decode_utf8(b'{"a": "\xff"}', source="x.json")
        self.assertEqual(str(caught.exception), "x.json: not UTF-8 text (byte 0xff at offset 7)")


class CheckersTest(unittest.TestCase):
    def test_bool_is_never_a_number(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.require_number(True, "$.capacities.R", low=0, high=1)
        self.assertEqual(str(caught.exception),
                         "$.capacities.R: expected a number in [0, 1], got true")

    def test_integer_required(self):
        self.assertEqual(ehq_ref.require_number(3, "$.n", low=0, integer=True), 3)
        with self.assertRaises(InputError):
            ehq_ref.require_number(3.0, "$.n", integer=True)

    def test_unknown_field_named(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.require_object({"a": 1, "zz": 2}, "$.x", required=("a",))
        self.assertEqual(str(caught.exception), "$.x: unknown field 'zz' (expected one of: a)")

    def test_missing_field_named(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.require_object({}, "$.x", required=("a",))
        self.assertEqual(str(caught.exception), "$.x: missing required field 'a'")

    def test_reading_attaches_source(self):
        with self.assertRaises(InputError) as caught:
            with ehq_ref.reading("f.json"):
                ehq_ref.require_string(5, "$.run")
        self.assertEqual(str(caught.exception), "f.json: $.run: expected a non-empty string, got 5")


class HashingTest(TempDirTestCase):
    def test_canonical_json_sorted_compact_utf8(self):
        self.assertEqual(ehq_ref.canonical_json({"b": 1, "a": ["é", 2.0]}), '{"a":["é",2.0],"b":1}')

    def test_hash_value_is_sha256_of_canonical_json(self):
        self.assertEqual(ehq_ref.hash_value([]),
                         "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945")

    def test_atomic_write_replaces_and_leaves_no_temp(self):
        target = self.path("sub", "out.json")
        ehq_ref.write_json(target, {"x": 1})
        ehq_ref.write_json(target, {"x": 2})
        with open(target) as handle:
            self.assertEqual(handle.read(), '{\n  "x": 2\n}\n')
        self.assertEqual(os.listdir(self.path("sub")), ["out.json"])

    def test_sha256_file_counts_bytes(self):
        target = self.write("a.txt", "abc")
        self.assertEqual(ehq_ref.sha256_file(target),
                         ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3))


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def _lines(path):
    return _read(path).split(b"\n")[:-1]


def _write_lines(path, lines, tail=b""):
    with open(path, "wb") as handle:
        handle.write(b"".join(line + b"\n" for line in lines) + tail)


class ChainedLogTest(TempDirTestCase):
    def make_log(self, count=5):
        log_path = self.path("events.jsonl")
        with ehq_ref.ChainedLog(log_path, durable=False) as log:
            for i in range(count):
                log.append({"event": "step", "i": i})
        return log_path

    def test_records_are_chained(self):
        log_path = self.make_log(3)
        records = [json.loads(line) for line in _lines(log_path)]
        self.assertEqual([r["seq"] for r in records], [0, 1, 2])
        self.assertEqual(records[0]["prev_hash"], ehq_ref.GENESIS_HASH)
        self.assertEqual(records[1]["prev_hash"], records[0]["hash"])
        body = dict(records[2])
        digest = body.pop("hash")
        self.assertEqual(ehq_ref.hash_value(body), digest)
        report = ehq_ref.verify_log(log_path)
        self.assertEqual((report["valid"], report["records"], report["head_hash"]),
                         (True, 3, records[2]["hash"]))

    def test_reserved_field_rejected(self):
        with self.assertRaises(InputError):
            ehq_ref.append_event(self.path("e.jsonl"), {"seq": 1})

    def test_edit_detected_at_the_edited_line(self):
        log_path = self.make_log()
        lines = _lines(log_path)
        lines[2] = lines[2].replace(b'"i":2', b'"i":7')
        _write_lines(log_path, lines)
        report = ehq_ref.verify_log(log_path)
        self.assertEqual((report["valid"], report["first_bad_line"]), (False, 3))
        self.assertIn("edited", report["problem"])

    def test_delete_detected_at_the_following_line(self):
        log_path = self.make_log()
        lines = _lines(log_path)
        del lines[1]
        _write_lines(log_path, lines)
        report = ehq_ref.verify_log(log_path)
        self.assertEqual(report["first_bad_line"], 2)
        self.assertIn("expected seq 1, found 2", report["problem"])

    def test_reorder_detected(self):
        log_path = self.make_log()
        lines = _lines(log_path)
        lines[1], lines[3] = lines[3], lines[1]
        _write_lines(log_path, lines)
        report = ehq_ref.verify_log(log_path)
        self.assertEqual(report["first_bad_line"], 2)
        self.assertIn("out of sequence", report["problem"])

    def test_truncated_line_detected(self):
        log_path = self.make_log()
        with open(log_path, "rb") as handle:
            data = handle.read()
        with open(log_path, "wb") as handle:
            handle.write(data[:-25])
        report = ehq_ref.verify_log(log_path)
        self.assertEqual((report["valid"], report["first_bad_line"], report["records"]),
                         (False, 5, 4))
        self.assertIn("torn last line", report["problem"])

    def test_trailing_deletion_caught_by_anchor(self):
        log_path = self.make_log()
        head = ehq_ref.verify_log(log_path)["head_hash"]
        lines = _lines(log_path)
        _write_lines(log_path, lines[:-1])
        self.assertTrue(ehq_ref.verify_log(log_path)["valid"])
        report = ehq_ref.verify_log(log_path, anchor=head)
        self.assertFalse(report["valid"])
        self.assertIn("anchor", report["problem"])

    def test_torn_tail_is_moved_aside_and_chain_continues(self):
        log_path = self.make_log(3)
        with open(log_path, "ab") as handle:
            handle.write(b'{"event":"half')
        notice = io.StringIO()
        with contextlib.redirect_stderr(notice):
            ehq_ref.append_event(log_path, {"event": "after"}, durable=False)
        self.assertIn("repaired a torn last line (14 bytes moved to", notice.getvalue())
        report = ehq_ref.verify_log(log_path)
        self.assertEqual((report["valid"], report["records"]), (True, 4))
        self.assertEqual(_read(log_path + ".torn"), b'{"event":"half\n')
        self.assertEqual(json.loads(_lines(log_path)[3])["event"], "after")

    def test_appending_to_a_broken_tail_is_refused(self):
        log_path = self.write("bad.jsonl", '{"not": "chained"}\n')
        with self.assertRaises(ehq_ref.IntegrityError):
            ehq_ref.append_event(log_path, {"event": "x"})
        self.assertEqual(_read(log_path), b'{"not": "chained"}\n')

    def test_two_processes_append_400_records(self):
        log_path = self.path("shared.jsonl")
        script = ("import sys; sys.path.insert(0, sys.argv[1]); import ehq_ref\n"
                  "log = ehq_ref.ChainedLog(sys.argv[2], durable=False)\n"
                  "for i in range(200):\n"
                  "    log.append({'writer': sys.argv[3], 'i': i})\n")
        writers = [
            subprocess.Popen([sys.executable, "-c", script, ROOT, log_path, name]) for name in "ab"
        ]
        self.assertEqual([w.wait(timeout=120) for w in writers], [0, 0])
        report = ehq_ref.verify_log(log_path)
        self.assertEqual((report["valid"], report["records"]), (True, 400))
        records = [json.loads(line) for line in _lines(log_path)]
        for name in "ab":
            self.assertEqual([r["i"] for r in records if r["writer"] == name], list(range(200)))

    def test_verify_log_cli_exit_codes(self):
        log_path = self.make_log(2)
        ok = run_cli("verify-log", log_path)
        self.assertEqual((ok.code, ok.json()["records"]), (0, 2))
        with open(log_path, "ab") as handle:
            handle.write(b"{")
        broken = run_cli("verify-log", log_path)
        self.assertEqual(broken.code, 1)
        self.assertIn("line 3: torn last line", broken.err)


if __name__ == "__main__":
    unittest.main()
