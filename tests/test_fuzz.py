"""Seeded fuzzing of every loader: a mutated input is a clear one-line refusal, never a traceback.

Each loader's example input is mutated a few hundred times (a hostile value planted at a random
place of the parsed document, or a byte-level cut, insertion or duplication). Every mutation
goes through the command line in-process and must end with exit 0 (the mutation happened to be
valid input) or the loader's refusal status, with at most three lines on stderr naming the file.
An exception escaping main() fails the test with the seed and mutation that caused it.
"""

import json
import os
import random
import shutil
import unittest

from support import EXAMPLES, TempDirTestCase, ehq_ref, run_cli

SEED = 20261201
MUTATIONS = 150  # per loader

HOSTILE = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "9" * 5000, "true", "false",
           "null", '"\\ud800"', "[]", "{}", '"' + "x" * 2000 + '"', "[" * 100000 + "]" * 100000,
           "-1", "0", "1.5", '"\\u0000"', '{"a": 1, "a": 2}', '""', '"📉"', "1" * 19, "2" * 25]


def _paths(value, prefix=()):
    """Every (path) to a node of a parsed JSON document, the root included."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key, ))
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _paths(child, prefix + (index, ))


def _replace(document, path, text):
    """The JSON text of ``document`` with the node at ``path`` replaced by the raw JSON ``text``."""
    marker = "\u2063HOSTILE\u2063"
    if not path:
        return text
    copy = json.loads(json.dumps(document))
    node = copy
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = marker
    return json.dumps(copy, ensure_ascii=False).replace(json.dumps(marker, ensure_ascii=False),
                                                        text)


def mutate(data, rng):
    """One seeded mutation of a file's bytes; returns (bytes, description)."""
    text = data.decode("utf-8")
    lines = text.splitlines()
    documents = []
    try:
        documents = [("json", json.loads(text))]
    except ValueError:
        try:
            documents = [("jsonl", [json.loads(line) for line in lines if line.strip()])]
        except ValueError:
            pass
    choice = rng.random()
    if documents and choice < 0.6:
        kind, document = documents[0]
        hostile = rng.choice(HOSTILE)
        if kind == "json":
            path = rng.choice(list(_paths(document)))
            parent = _node(document, path[:-1]) if path else None
            if isinstance(parent, dict) and rng.random() < 0.2:
                return _replace(document, path[:-1], json.dumps(
                    dict(parent, unexpected_field=1))).encode(), f"unknown field beside {path}"
            return _replace(document, path, hostile).encode("utf-8", "surrogatepass"), \
                f"{path} = {hostile[:30]}"
        index = rng.randrange(len(document))
        path = rng.choice(list(_paths(document[index])))
        lines_out = [json.dumps(line) for line in document]
        lines_out[index] = _replace(document[index], path, hostile)
        return ("\n".join(lines_out) + "\n").encode(), f"line {index + 1} {path} = {hostile[:30]}"
    if choice < 0.7 and len(data) > 2:
        start = rng.randrange(len(data))
        return data[:start] + data[start + rng.randrange(1, 40):], "bytes cut"
    if choice < 0.8:
        position = rng.randrange(len(data) + 1)
        return data[:position] + rng.choice(HOSTILE).encode() + data[position:], "bytes inserted"
    if choice < 0.85:
        return b"\xef\xbb\xbf" + data if rng.random() < 0.5 else data + b"\xff", "encoding"
    if choice < 0.9 and lines:
        picked = rng.randrange(len(lines))
        return ("\n".join(lines[:picked + 1] + lines[picked:]) + "\n").encode(), "line repeated"
    return data[:rng.randrange(len(data) + 1)], "truncated"


def _node(document, path):
    """The node of a parsed document at ``path``."""
    for step in path:
        document = document[step]
    return document


class LoaderFuzzTest(TempDirTestCase):
    """A few hundred mutations of each loader's input, each a clean exit."""

    @classmethod
    def setUpClass(cls):
        import tempfile
        cls.base = tempfile.mkdtemp(prefix="ehq_ref_fuzz_")
        result = run_cli("run", "--output", cls.base, "--run-id", "r", "--reproducible",
                         "--bootstrap", "0", "--quiet", "--target", "0.5")
        assert result.code == 0, result
        cls.run_dir = os.path.join(cls.base, "r")
        with open(os.path.join(cls.run_dir, "records.jsonl"), encoding="utf-8") as handle:
            records = [json.loads(line) for line in handle]
        cls.adjudication = json.dumps({"adjudications": [
            {"model": r["model"], "question_id": r["question_id"], "label": "ABSTAIN"}
            for r in records[:4]]}, indent=1).encode()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.base, True)

    def example(self, name):
        with open(os.path.join(EXAMPLES, name), "rb") as handle:
            return handle.read()

    def run_file(self, name):
        with open(os.path.join(self.run_dir, name), "rb") as handle:
            return handle.read()

    def fuzz(self, name, original, command, allowed=(0, 2)):
        """Mutate ``original`` MUTATIONS times, write it as ``name``, run ``command(path)``."""
        rng = random.Random(f"{SEED}|{name}")
        seen = set()
        for number in range(MUTATIONS):
            data, how = mutate(original, rng)
            if data in seen:
                continue
            seen.add(data)
            path = self.write(name, data)
            try:
                result = run_cli(*command(path, number))
            except Exception as error:  # an escaped exception is the defect under test
                self.fail(f"{name}: mutation {number} ({how}) raised {type(error).__name__}: "
                          f"{str(error)[:200]}")
            where = f"{name}: mutation {number} ({how}): {result!r}"
            self.assertIn(result.code, allowed, where)
            self.assertNotIn("Traceback", result.err, where)
            if result.code == 2:
                lines = result.err.strip().splitlines()
                self.assertLessEqual(len(lines), 3, where)
                self.assertIn(os.path.basename(name), result.err, where)

    def test_score_json(self):
        self.fuzz("score.json", self.example("score.json"), lambda p, n: ("score", p))

    def test_score_records_jsonl(self):
        self.fuzz("records.jsonl", self.run_file("records.jsonl"),
                  lambda p, n: ("score", p, "--bootstrap", "0"))

    def test_sweep(self):
        self.fuzz("sweep.json", self.example("sweep.json"), lambda p, n: ("sweep", p))

    def test_log_event(self):
        self.fuzz("event.json", self.example("event.json"),
                  lambda p, n: ("log", p, "--output", self.path(f"log{n}.jsonl")))

    def test_items_json_and_jsonl(self):
        items = json.loads(self.example("items.json"))[:6]
        as_jsonl = "".join(json.dumps(item) + "\n" for item in items).encode()
        for name, data in (("items.json", json.dumps(items).encode()),
                           ("items.jsonl", as_jsonl)):
            with self.subTest(name=name):
                self.fuzz(name, data, lambda p, n: (
                    "run", "--items", p, "--output", self.path("runs"), "--run-id", f"{name}-{n}",
                    "--bootstrap", "0", "--quiet", "--limit", "2"), allowed=(0, 2))

    def test_items_csv(self):
        text = ("id,question,gold,unknown_ok,options,category\n"
                "q1,What is the capital of France?,Paris,0,,HNQ\n"
                "q2,Which planet is largest?,B,0,Mars|Jupiter|Venus,HNQ\n"
                "q3,\"What did the note say, exactly?\",,1,,FEQ\n")
        self.fuzz("items.csv", text.encode(), lambda p, n: (
            "run", "--items", p, "--output", self.path("runs"), "--run-id", f"csv-{n}",
            "--bootstrap", "0", "--quiet"))

    def test_registry(self):
        self.fuzz("models.json", self.example("models.json"), lambda p, n: (
            "run", "--registry", p, "--model", "offline", "--output", self.path("runs"),
            "--run-id", f"g{n}", "--bootstrap", "0", "--quiet", "--limit", "1",
            "--env-file", self.path("no.env")))

    def test_gate_baseline(self):
        self.fuzz("baseline.json", self.run_file("summary.json"),
                  lambda p, n: ("gate", self.run_dir, "--baseline", p), allowed=(0, 1, 2))

    def test_adjudication(self):
        records = os.path.join(self.run_dir, "records.jsonl")
        self.fuzz("adjudication.json", self.adjudication,
                  lambda p, n: ("score", records, "--adjudication", p, "--bootstrap", "0"))

    def _run_copy(self, name, original, command, allowed):
        copy = self.path("copy")
        shutil.rmtree(copy, True)
        shutil.copytree(self.run_dir, copy)
        self.fuzz(os.path.join("copy", name), original, command, allowed)

    def test_manifest(self):
        self._run_copy("manifest.json", self.run_file("manifest.json"),
                       lambda p, n: ("status", self.path("copy")), allowed=(0, 2))

    def test_run_records_on_status(self):
        self._run_copy("target_records.jsonl", self.run_file("target_records.jsonl"),
                       lambda p, n: ("status", self.path("copy")), allowed=(0, 2))

    def test_catalog(self):
        self._run_copy("artifact_catalog.json", self.run_file("artifact_catalog.json"),
                       lambda p, n: ("verify-run", self.path("copy")), allowed=(0, 1, 2))

    def test_event_log(self):
        self._run_copy("events.jsonl", self.run_file("events.jsonl"),
                       lambda p, n: ("verify-log", p), allowed=(0, 1))


if __name__ == "__main__":
    unittest.main()
