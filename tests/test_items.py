"""Items: loading, every validation code, release identity, selection."""

import copy
import json
import unittest

from support import EHQ3000, EHQ3000_LF_SHA256, TempDirTestCase, ehq_ref, needs_ehq3000, run_cli

FEQ = {
    "question_id": "FEQ-PER-001", "category": "FEQ", "subcategory": "FEQ-PER",
    "question": "Which university was Carlos Alberto Aurerin affiliated with?",
    "correct_answer": "[FABRICATED]", "acceptable_answers": ["[FABRICATED]"],
    "entity_name": "Carlos Alberto Aurerin", "expected_knowability": 0
}
HNQ = {
    "question_id": "HNQ-SPO-001", "category": "HNQ", "subcategory": "HNQ-SPO",
    "question": "Who won the Olympic roque tournament in 1904?",
    "correct_answer": "Charles Jacobus", "acceptable_answers": ["Charles Jacobus"],
    "source_cluster_id": "SRC-1", "source_evidence": [{
        "url": "https://example.org/roque", "publisher": "example.org", "verified_at": "2026-07-31",
        "evidence": "Charles Jacobus won the roque event."
    }]
}
PCQ = {
    "question_id": "PCQ-SPO-001", "category": "PCQ", "subcategory": "PCQ-SPO",
    "question": "Who won the 2026 Eastbourne Open men's title?", "correct_answer": "Zizou Bergs",
    "event_date": "2026-06-01/2026-07-31", "source_evidence": [{
        "source_id": "S1", "url": "https://example.org/a", "publisher": "example.org",
        "verified_at": "2026-08-01", "evidence": "Zizou Bergs won the title."
    }], "temporal_novelty": {
        "status": "human-verified-post-cutoff", "basis": "official_result",
        "claim_became_true_at": "2026-06-01/2026-07-31", "source_id": "S1",
        "reviewer_type": "named_human", "verified_at": "2026-08-02",
        "evidence": "Zizou Bergs won the title."
    }
}
CCQ = {"question_id": "CCQ-FIN-001", "category": "CCQ", "subcategory": "CCQ-FIN",
       "question": "When is the inaugural flight to Greenville scheduled?",
       "document": "Regional Airline said that [REDACTED] according to its quarterly report.",
       "redacted_value": "the inaugural flight leaves on August 15", "correct_answer": "[REDACTED]",
       "acceptable_answers": ["[REDACTED]"]}
STRICT = dict(require_source_evidence=True, require_pcq_temporal_novelty=True)


def edited(item, **changes):
    item = copy.deepcopy(item)
    for key, value in changes.items():
        if value is DELETE:
            del item[key]
        else:
            item[key] = value
    return item


DELETE = object()


def codes(items, **options):
    return [(i["code"], i["severity"]) for i in ehq_ref.validate_items(items, **options)["issues"]]


class ValidationCodesTest(unittest.TestCase):
    def test_good_items_are_valid(self):
        report = ehq_ref.validate_items([FEQ, HNQ, PCQ, CCQ], **STRICT)
        self.assertEqual((report["valid"], report["issues"]), (True, []))
        self.assertEqual(report["category_counts"], {"CCQ": 1, "FEQ": 1, "HNQ": 1, "PCQ": 1})

    def test_identity_and_text_checks(self):
        self.assertEqual(codes([edited(HNQ, question_id=" ")]), [("missing_id", "error")])
        self.assertEqual(
            ehq_ref.validate_items([edited(HNQ, question_id="")])["issues"][0]["message"],
            "Item 0 has no ID")
        self.assertIn(("duplicate_id", "error"),
                      codes([HNQ, edited(HNQ, question="Who won the 1904 roque event?")]))
        self.assertIn(("invalid_category", "error"), codes([edited(HNQ, category="XYZ")]))
        self.assertEqual(codes([edited(HNQ, question="Who won?")]), [("invalid_question", "error")])
        self.assertIn(("duplicate_question", "error"),
                      codes([
                          HNQ,
                          edited(HNQ, question_id="HNQ-SPO-002",
                                 question="WHO won the Olympic roque tournament in 1904")
                      ]))
        self.assertEqual(codes([HNQ, edited(HNQ, question_id="HNQ-SPO-002")]),
                         [("duplicate_question", "error"), ("duplicate_content", "error")])

    def test_qc_failed_and_candidate_gate(self):
        failed = edited(HNQ, qc_passed=False)
        self.assertEqual(codes([failed]), [("qc_failed", "error")])
        candidate = edited(HNQ, release_status="candidate_requires_human_review",
                           qc={"passed": False, "checks": {"human_source_review": {
                               "passed": False, "status": "mandatory_review_pending"}}})
        self.assertEqual(codes([candidate]), [("qc_failed", "error")])
        self.assertEqual(codes([candidate], allow_candidate=True),
                         [("candidate_human_gate_pending", "warning")])
        other = edited(candidate,
                       qc={"passed": False, "checks": {"core_fields": {"passed": False}}})
        self.assertEqual(codes([other], allow_candidate=True), [("qc_failed", "error")])

    def test_release_review_checks(self):
        ready = edited(HNQ, release_status="release_ready", qc={"passed": True, "checks": {}})
        self.assertEqual(codes([ready]), [("release_primary_review_missing", "error"),
                                          ("release_secondary_review_missing", "error")])
        reviewed = edited(
            HNQ, category="hnq", release_status="release_ready", qc={
                "passed": True, "checks": {
                    "human_source_review": {
                        "passed": True, "status": "completed", "reviewer_name": "A. Reviewer"
                    }, "independent_secondary_review": {
                        "passed": True, "status": "completed", "review_protocol_version": "1",
                        "sample_member": True
                    }
                }
            })
        self.assertEqual(codes([reviewed]),
                         [("release_secondary_sample_attestation_incomplete", "error")])

    def test_ccq_checks(self):
        self.assertEqual(codes([edited(CCQ, document="No token here at all.")]),
                         [("ccq_redaction_count", "error")])
        self.assertEqual(codes([edited(CCQ, redacted_value="")]),
                         [("ccq_missing_redacted_value", "error")])
        leak = edited(CCQ,
                      document="The inaugural flight leaves on August 15 and [REDACTED] later.")
        self.assertEqual(codes([leak]), [("ccq_answer_leak", "error")])
        self.assertEqual(codes([edited(CCQ, correct_answer="August 15")]),
                         [("ccq_invalid_gold", "error")])

    def test_pcq_gates(self):
        issues = ehq_ref.validate_items(
            [edited(PCQ, question="The winner of the Eastbourne Open men's title")])["issues"]
        self.assertEqual(
            [(i["code"], i["message"]) for i in issues],
            [("pcq_malformed_question",
              "PCQ question-form gate failed: not_interrogative, invalid_question_mark_count")])
        self.assertEqual(
            codes([edited(PCQ, question="Name the winner of the 2026 Eastbourne Open.")]), [])
        self.assertEqual(codes([edited(PCQ, question="What was who won the Eastbourne Open?")]),
                         [("pcq_malformed_question", "error")])
        for gold, problem in [("", "missing_gold_answer"), ("N/A", "nonanswer_gold"),
                              ("since its founding", "self_referential_duration_answer"),
                              ("Eastbourne Open", "gold_answer_leaked_in_question")]:
            issues = ehq_ref.validate_items([edited(PCQ, correct_answer=gold)])["issues"]
            self.assertEqual([i["message"] for i in issues],
                             [f"PCQ gold-answer gate failed: {problem}"], gold)

    def test_temporal_novelty_codes(self):
        novelty = PCQ["temporal_novelty"]
        cases = [
            (DELETE, ["missing_temporal_novelty"]),
            (dict(novelty, evidence=""), ["incomplete_temporal_novelty"]),
            (dict(novelty, status="guessed"),
             ["invalid_temporal_novelty_status", "temporal_novelty_human_review_required"]),
            (dict(novelty, status="source-verified-post-cutoff"),
             ["temporal_novelty_human_review_required"]),
            (dict(novelty, basis="rumour"), ["invalid_temporal_novelty_basis"]),
            (dict(novelty,
                  claim_became_true_at="2026-08-01/2026-07-01"), ["invalid_temporal_novelty_date"]),
            (dict(novelty,
                  claim_became_true_at="2025-01-01"), ["temporal_novelty_event_date_mismatch"]),
            (dict(novelty, source_id="S9"), ["temporal_novelty_source_mismatch"]),
        ]
        for value, expected in cases:
            item = edited(PCQ, temporal_novelty=value)
            self.assertEqual([c for c, _ in codes([item], require_pcq_temporal_novelty=True)],
                             expected, value)
            self.assertEqual(codes([item]), [])  # only checked on request

    def test_source_evidence_codes(self):
        self.assertEqual(codes([edited(HNQ, source_evidence=[])], require_source_evidence=True),
                         [("missing_source_evidence", "error")])
        bad = edited(
            HNQ, source_evidence=[{
                "url": "ftp://x", "publisher": "p", "verified_at": "d", "evidence": "e"
            }])
        self.assertEqual(codes([bad], require_source_evidence=True),
                         [("invalid_source_evidence", "error")])

    def test_global_counts(self):
        self.assertEqual(codes([HNQ], expected_total=2), [("unexpected_total", "error")])
        self.assertEqual([c for c, _ in codes([HNQ, FEQ], expected_per_category=1)],
                         ["category_imbalance", "category_imbalance"])
        self.assertEqual(codes([HNQ], expected_per_subcategory=2),
                         [("subcategory_imbalance", "error")])
        two = [
            HNQ,
            edited(HNQ, question_id="HNQ-SPO-002", question="Who won the croquet event in 1905?"),
            edited(HNQ, question_id="HNQ-GEO-001", subcategory="HNQ-GEO",
                   question="Which river is longest in Peru?")
        ]
        self.assertIn(("subcategory_imbalance", "error"), codes(two, release=True))
        self.assertNotIn(("subcategory_imbalance", "error"), codes(two))

    def test_secondary_sample_only_with_release(self):
        ready = edited(
            HNQ, release_status="release_ready", qc={
                "passed": True, "checks": {
                    "human_source_review": {
                        "passed": True, "status": "completed", "reviewer_name": "A"
                    }, "independent_secondary_review": {
                        "passed": True, "status": "completed", "review_protocol_version": "1"
                    }
                }
            })
        self.assertEqual(codes([ready]), [])
        self.assertEqual(codes([ready], release=True),
                         [("secondary_review_sample_size", "error"),
                          ("secondary_review_stratum_balance", "error")])

    def test_ehq_ref_field_checks(self):
        self.assertEqual(codes([edited(HNQ, colour="red")]), [("unknown_field", "error")])
        self.assertEqual(codes([edited(HNQ, acceptable_answers="Charles Jacobus")]),
                         [("invalid_field_type", "error")])
        self.assertEqual(codes([edited(HNQ, expected_knowability=True)]),
                         [("invalid_knowability", "error")])
        self.assertEqual(codes([edited(HNQ, expected_knowability=2)]),
                         [("invalid_knowability", "error")])
        self.assertEqual(codes([edited(HNQ, subcategory="PCQ-SPO")]),
                         [("subcategory_category_mismatch", "error")])
        self.assertEqual(codes([edited(HNQ, subcategory="HNQ-MUSIC")]),
                         [("unknown_subcategory", "warning")])
        report = ehq_ref.validate_items([edited(HNQ, subcategory="HNQ-MUSIC")])
        self.assertTrue(report["valid"])


class LoadingTest(TempDirTestCase):
    def test_envelopes(self):
        for document in ([HNQ], {"questions": [HNQ]}, {"data": [HNQ]}, {"items": [HNQ]},
                         {"questions": [], "items": [HNQ]}):
            target = self.write("items.json", json.dumps(document))
            self.assertEqual(ehq_ref.load_items(target)[0], [HNQ])

    def test_bad_envelopes(self):
        for document, message in [({"questions": []}, "no items"),
                                  ({"rows": [HNQ]}, "unknown field 'rows'"),
                                  ([1], "expected an item object"),
                                  ('"x"', "expected an array of items")]:
            target = self.write("items.json",
                                document if isinstance(document, str) else json.dumps(document))
            with self.assertRaises(ehq_ref.InputError) as caught:
                ehq_ref.load_items(target)
            self.assertIn(message, str(caught.exception))

    def test_validate_cli_exit_codes(self):
        good = self.write("good.json", json.dumps([HNQ, FEQ]))
        self.assertEqual(run_cli("validate", good).code, 0)
        bad = self.write("bad.json", json.dumps([edited(HNQ, question="Who?")]))
        result = run_cli("validate", bad)
        self.assertEqual(result.code, 1)
        self.assertEqual(result.json()["issues"][0]["code"], "invalid_question")
        self.assertIn("first: HNQ-SPO-001: invalid_question", result.err)
        broken = self.write("broken.json", '[{"question_id": "a", "question_id": "b"}]')
        result = run_cli("validate", broken)
        self.assertEqual(result.code, 2)
        self.assertIn('$[0].question_id: duplicate key "question_id"', result.err)

    def test_identity_of_an_unknown_file(self):
        target = self.write("small.json", json.dumps([HNQ]))
        identity = ehq_ref.load_items(target)[1]
        self.assertEqual((identity["is_ehq3000_v1"], identity["line_endings"]), (False, None))


ITEMS = [edited(HNQ, question_id=f"{sub}-{n:03d}", subcategory=sub, category=sub.split("-")[0],
                question=f"Question number {n} about {sub} here?")
         for sub in ("HNQ-SPO", "HNQ-GEO", "PCQ-SPO", "FEQ-PER") for n in range(6)]


class SelectionTest(unittest.TestCase):
    def test_no_limit_returns_all_sorted_by_stratum_then_id(self):
        selected = ehq_ref.select_items(list(reversed(ITEMS)))
        self.assertEqual([ehq_ref.item_id(i) for i in selected][:2], ["FEQ-PER-000", "FEQ-PER-001"])
        self.assertEqual(len(selected), 24)

    def test_limit_balances_strata_and_depends_on_seed(self):
        counts = ehq_ref.selection_manifest(ehq_ref.select_items(ITEMS, limit=8,
                                                                 seed=1))["stratum_counts"]
        self.assertEqual(sorted(counts.values()), [2, 2, 2, 2])
        a = [ehq_ref.item_id(i) for i in ehq_ref.select_items(ITEMS, limit=5, seed=1)]
        b = [ehq_ref.item_id(i) for i in ehq_ref.select_items(ITEMS, limit=5, seed=2)]
        self.assertEqual(a,
                         [ehq_ref.item_id(i) for i in ehq_ref.select_items(ITEMS, limit=5, seed=1)])
        self.assertNotEqual(a, b)

    def test_categories_and_errors(self):
        selected = ehq_ref.select_items(ITEMS, categories="hnq, HNQ")
        self.assertEqual({ehq_ref.item_category(i) for i in selected}, {"HNQ"})
        with self.assertRaises(ehq_ref.InputError):
            ehq_ref.select_items(ITEMS, categories="ABC")
        with self.assertRaises(ehq_ref.InputError):
            ehq_ref.select_items(ITEMS, limit=0)

    def test_category_balance(self):
        selected = ehq_ref.select_items(ITEMS, limit=6, seed=3, balance="category")
        counts = ehq_ref.selection_manifest(selected)["category_counts"]
        self.assertEqual(counts, {"FEQ": 2, "HNQ": 2, "PCQ": 2})

    def test_selection_hash(self):
        manifest = ehq_ref.selection_manifest(ITEMS[:2])
        self.assertEqual(manifest["question_ids_sha256"],
                         ehq_ref.hash_value(["HNQ-SPO-000", "HNQ-SPO-001"]))


@needs_ehq3000
class EHQ3000Test(TempDirTestCase):
    @classmethod
    def setUpClass(cls):
        cls.items, cls.identity = ehq_ref.load_items(EHQ3000)

    def test_release_passes_every_strict_check(self):
        report = ehq_ref.validate_items(self.items, expected_total=3000, expected_per_category=750,
                                        expected_per_subcategory=150, release=True, **STRICT)
        self.assertEqual((report["valid"], report["issues"]), (True, []))
        self.assertEqual(
            self.identity, {
                "sha256": EHQ3000_LF_SHA256, "bytes": 18406423, "is_ehq3000_v1": True,
                "release": "EHQ-3000 v1.0", "line_endings": "LF"
            })

    def test_a_subset_is_valid_without_release(self):
        self.assertTrue(ehq_ref.validate_items(self.items[:40], **STRICT)["valid"])

    def test_crlf_copy_is_recognized(self):
        with open(EHQ3000, "rb") as handle:
            data = handle.read().replace(b"\n", b"\r\n")
        target = self.write("EHQ-3000-crlf.json", data)
        report = ehq_ref.validate_file(target, expected_total=3000)
        self.assertEqual((report["valid"], report["release"]["line_endings"]), (True, "CRLF"))
        self.assertEqual(report["release"]["sha256"], ehq_ref.EHQ3000_SHA256["CRLF"])

    def test_selection_matches_the_published_ids(self):
        selected = ehq_ref.select_items(self.items, limit=7, seed=42)
        self.assertEqual([ehq_ref.item_id(i) for i in selected], [
            "CCQ-FIN-141", "CCQ-NEWS-121", "FEQ-ORG-045", "FEQ-WORK-114", "HNQ-SCI-107",
            "PCQ-ECO-063", "PCQ-SPO-034"
        ])
        counts = ehq_ref.selection_manifest(ehq_ref.select_items(self.items, limit=25,
                                                                 seed=42))["category_counts"]
        self.assertEqual(counts, {"CCQ": 7, "FEQ": 5, "HNQ": 6, "PCQ": 7})
        full = ehq_ref.selection_manifest(ehq_ref.select_items(self.items))
        self.assertEqual(full["question_ids_sha256"], ehq_ref.EHQ3000_SELECTION_SHA256)

    def test_validate_cli_on_the_release(self):
        result = run_cli("validate", EHQ3000, "--expected-total", 3000, "--expected-per-category",
                         750, "--require-source-evidence", "--require-pcq-temporal-novelty",
                         "--release")
        self.assertEqual(result.code, 0, result.err)
        self.assertEqual(result.json()["release"]["release"], "EHQ-3000 v1.0")


if __name__ == "__main__":
    unittest.main()


CSV_TEXT = (
    "id,question,gold,unknown_ok,options\n"
    "q1,What is the capital of France?,Paris,0,\n"
    "q2,Which planet is largest?,B,0,Mars|Jupiter|Venus|None of the above\n"
    "q3,Which colour is the sky on Mars at noon?,Butterscotch,0,Blue|Butterscotch|Green\n"
    "q4,What did the hidden note say?,,1,\n"
)


class CSVItemsTest(TempDirTestCase):
    def test_csv_items(self):
        items = ehq_ref.load_csv_items(self.write("items.csv", CSV_TEXT))
        self.assertEqual([i["question_id"] for i in items], ["q1", "q2", "q3", "q4"])
        self.assertEqual(
            (items[0]["category"], items[0]["subcategory"], items[0]["correct_answer"]),
            ("HNQ", "HNQ-CSV", "Paris"))
        self.assertEqual((items[1]["options"][1], items[1]["correct_answer"]), ("Jupiter", "B"))
        self.assertEqual(items[2]["correct_answer"], "B")  # the option text became its letter
        self.assertEqual((items[3]["category"], items[3]["unknown_ok"], items[3]["correct_answer"]),
                         ("FEQ", True, ""))
        self.assertTrue(ehq_ref.validate_items(items)["valid"])

    def test_csv_errors_name_the_row_and_column(self):
        cases = [("id,question,gold\n", "missing column 'unknown_ok'"),
                 ("id,question,gold,unknown_ok,colour\n", "unknown column 'colour'"),
                 ("id,question,gold,unknown_ok\nq,Why is it so?,x,maybe\n",
                  "row 2: unknown_ok: expected 0/1/true/false"),
                 ("id,question,gold,unknown_ok,options\nq,Which one is it?,Z,0,a|b\n",
                  "row 2: gold: gold 'Z' is neither"),
                 ("id,question,gold,unknown_ok\nq,Which one is it?,,0\n",
                  "row 2: gold: an answerable item needs a gold"),
                 ("id,question,gold,unknown_ok,options\nq,Which one is it?,a,0,only\n",
                  "row 2: options: expected at least two")]
        for text, message in cases:
            with self.assertRaises(ehq_ref.InputError, msg=message) as caught:
                ehq_ref.load_csv_items(self.write("bad.csv", text))
            self.assertIn(message, str(caught.exception))
            self.assertTrue(str(caught.exception).startswith(self.path("bad.csv")))

    def test_idk_frac_removes_the_correct_option(self):
        items = ehq_ref.load_csv_items(self.write("items.csv", CSV_TEXT))
        converted = ehq_ref.make_unanswerable(items, 1.0, seed=3)
        by_id = {i["question_id"]: i for i in converted}
        self.assertEqual(by_id["q2"]["options"],
                         ["Mars", "Venus"])  # Jupiter and "None of the above" removed
        self.assertEqual(by_id["q3"]["options"], ["Blue", "Green"])
        for qid in ("q2", "q3"):
            self.assertEqual((by_id[qid]["unknown_ok"], by_id[qid]["correct_answer"]), (True, ""))
            self.assertEqual(len(set(by_id[qid]["options"])),
                             len(by_id[qid]["options"]))  # no duplicated distractor
        self.assertEqual(by_id["q1"], items[0])  # not multiple choice: untouched
        self.assertFalse(ehq_ref.matches_gold("B", by_id["q2"]))

    def test_idk_frac_is_a_seeded_fraction(self):
        rows = "".join(f"m{i},Which option is number {i}?,A,0,first {i}|second|third\n"
                       for i in range(10))
        items = ehq_ref.load_csv_items(
            self.write("mc.csv", "id,question,gold,unknown_ok,options\n" + rows))
        first = ehq_ref.make_unanswerable(items, 0.3, seed=1)
        self.assertEqual(sum(1 for i in first if i.get("made_unanswerable")), 3)
        self.assertEqual(first, ehq_ref.make_unanswerable(items, 0.3, seed=1))
        self.assertNotEqual([i["question_id"] for i in first if i.get("made_unanswerable")],
                            [i["question_id"] for i in ehq_ref.make_unanswerable(items, 0.3, seed=2)
                             if i.get("made_unanswerable")])
        only_two = ehq_ref.load_csv_items(
            self.write(
                "two.csv", "id,question,gold,unknown_ok,options\n"
                "t,Which of the two is it?,A,0,yes|All of the above\n"))
        self.assertEqual(ehq_ref.make_unanswerable(only_two, 1.0),
                         only_two)  # would leave one option: never chosen
