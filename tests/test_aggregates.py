"""Aggregates: weights, weighted means, profiles, CHI, similarity, Q_M, lure factor, EIMC,
events."""

import json
import math
import random
import unittest

from support import ehq_ref

InputError = ehq_ref.InputError
ONES = {"R": 1, "M": 1, "C": 1, "A": 1, "I": 1}


class WeightsTest(unittest.TestCase):
    def test_equal_by_default(self):
        self.assertEqual(ehq_ref.validate_weights(None, ehq_ref.AXES), (0.2,) * 5)

    def test_normalized_mapping(self):
        self.assertEqual(
            ehq_ref.validate_weights({"R": 2, "M": 2, "C": 2, "A": 2, "I": 2}, ehq_ref.AXES),
            (0.2, ) * 5)

    def test_positive_required_for_geometric(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.validate_weights({"R": 0, "M": 1, "C": 1, "A": 1, "I": 1}, ehq_ref.AXES)
        self.assertEqual(str(caught.exception), "$.weights.R: expected a positive number, got 0")

    def test_ehq_weights_must_sum_to_one(self):
        self.assertEqual(
            ehq_ref.validate_weights([0.3, 0.45, 0.25], ehq_ref.EHQ_COMPONENTS, normalize=False,
                                     allow_zero=True), (0.3, 0.45, 0.25))
        self.assertEqual(
            ehq_ref.validate_weights([0.75, 0, 0.25], ehq_ref.EHQ_COMPONENTS, normalize=False,
                                     allow_zero=True), (0.75, 0.0, 0.25))
        with self.assertRaises(InputError) as caught:
            ehq_ref.validate_weights([0.3, 0.45, 0.3], ehq_ref.EHQ_COMPONENTS, normalize=False,
                                     allow_zero=True)
        self.assertIn("must sum to 1", str(caught.exception))
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([1.5, -0.5, 0], ehq_ref.EHQ_COMPONENTS, normalize=False,
                                     allow_zero=True)

    def test_bool_weight_and_wrong_count(self):
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([True, 1, 1, 1, 1], ehq_ref.AXES)
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([1, 1], ehq_ref.AXES)

    def test_weighted_means(self):
        self.assertEqual(ehq_ref.weighted_arithmetic_mean([1.0, 0.0, 0.5], (0.3, 0.45, 0.25)),
                         0.425)
        self.assertEqual(ehq_ref.weighted_geometric_mean([0.25, 1.0], (0.5, 0.5)), 0.5)
        self.assertEqual(ehq_ref.weighted_geometric_mean([0.0, 1.0], (0.5, 0.5)), 0.0)


class ProfileAndChiTest(unittest.TestCase):
    def test_profile_from_mapping_and_sequence(self):
        self.assertEqual(ehq_ref.profile([0.1, 0.2, 0.3, 0.4, 0.5]),
                         {"R": 0.1, "M": 0.2, "C": 0.3, "A": 0.4, "I": 0.5})

    def test_profile_rejections(self):
        for bad, fragment in [({"R": 1, "M": 1, "C": 1, "A": 1}, "missing required field 'I'"),
                              (dict(ONES, X=1), "unknown field 'X'"),
                              (dict(ONES, R=True), "got true"),
                              (dict(ONES, R=float("nan")), "got nan"),
                              (dict(ONES, R=1.5), "expected a number in [0, 1], got 1.5"),
                              (dict(ONES, R="0.5"), 'got "0.5"'),
                              ([1, 1, 1], "expected 5 axis values")]:
            with self.assertRaises(InputError, msg=repr(bad)) as caught:
                ehq_ref.profile(bad, "$.h")
            self.assertIn(fragment, str(caught.exception))

    def test_chi_values(self):
        self.assertEqual(ehq_ref.chi(ONES), 100.0)
        self.assertEqual(ehq_ref.chi(dict(ONES, I=0)), 0.0)  # zero axis -> exactly zero
        self.assertIsNone(ehq_ref.chi(None))
        h = {"R": 0.5, "M": 0.5, "C": 0.5, "A": 0.5, "I": 0.5}
        self.assertAlmostEqual(ehq_ref.chi(h), 50.0, delta=1e-12)
        weighted = ehq_ref.chi(dict(ONES, R=0.25), weights={"R": 2, "M": 2, "C": 2, "A": 1, "I": 1})
        self.assertAlmostEqual(weighted, 100 * 0.25 ** 0.25, delta=1e-12)

    def test_human_similarity(self):
        self.assertEqual(ehq_ref.human_similarity([0, 0], [0, 0], [1, 1]), 1.0)
        self.assertAlmostEqual(ehq_ref.human_similarity([1, 3], [0, 1], [1, 2]), math.exp(-0.5),
                               delta=1e-15)
        for z, mu, scales in [([1], [1, 2], [1]), ([], [], []), ([1], [1], [0]),
                              ([True], [1], [1])]:
            with self.assertRaises(InputError):
                ehq_ref.human_similarity(z, mu, scales)


class QmAndLureTest(unittest.TestCase):
    def test_q_m(self):
        factors = {"r": 1, "t": 1, "s": 1, "u": 1, "i": 1, "f": 0}
        self.assertEqual(ehq_ref.q_m(factors), 1.0)
        self.assertEqual(ehq_ref.q_m(dict(factors, f=1)), 0.0)
        self.assertAlmostEqual(ehq_ref.q_m(dict(factors, r=0.64, f=0.36)), (0.64 * 0.64)**(1 / 6),
                               delta=1e-15)

    def test_q_m_missing_factor_is_none_but_supplied_ones_are_checked(self):
        self.assertIsNone(ehq_ref.q_m({"r": 0.9, "t": 0.9}))
        with self.assertRaises(InputError) as caught:
            ehq_ref.q_m({"r": 1.2})
        self.assertEqual(str(caught.exception), "$.factors.r: expected a number in [0, 1], got 1.2")

    def test_lure_example(self):
        self.assertEqual(ehq_ref.lure_factor(6, 2, 2),
                         {"n_lures": 10, "f": 0.4, "f_raw": 0.2, "invalid_rate": 0.2})

    def test_no_lures(self):
        self.assertEqual(ehq_ref.lure_factor(0, 0, 0),
                         {"n_lures": 0, "f": None, "f_raw": None, "invalid_rate": None})
        with self.assertRaises(InputError):
            ehq_ref.lure_factor(1, -1, 0)


class EimcTest(unittest.TestCase):
    def test_right_censored(self):
        result = ehq_ref.eimc({1: 0.95, 2: 0.85}, 0.8)
        self.assertEqual((result["eimc"], result["status"], result["right_censored"]),
                         (2, "lower_bound", True))
        self.assertEqual(result["sustained_prefix_eimc"], 2)

    def test_largest_passing_and_nonmonotonic(self):
        result = ehq_ref.eimc({1: 0.9, 2: 0.7, 4: 0.85, 8: 0.6}, 0.8)
        self.assertEqual((result["eimc"], result["status"]), (4, "largest_passing_tested"))
        self.assertEqual(result["sustained_prefix_eimc"], 1)
        self.assertEqual(result["passing"], [1, 4])
        self.assertEqual(result["warnings"],
                         ["nonmonotonic: Q_M rises from 0.7 at N=2 to 0.85 at N=4"])

    def test_none_passing_and_empty(self):
        result = ehq_ref.eimc({1: 0.5, 3: 0.4})
        self.assertEqual((result["eimc"], result["status"], result["sustained_prefix_eimc"]),
                         (None, "none_passing", None))
        self.assertEqual(ehq_ref.eimc({})["status"], "no_loads")

    def test_threshold_is_inclusive_and_missing_never_passes(self):
        result = ehq_ref.eimc({1: 0.8, 2: None}, 0.8)
        self.assertEqual((result["eimc"], result["status"]), (1, "largest_passing_tested"))
        self.assertEqual(result["warnings"], ["Q_M is unavailable at N=2; treated as not passing"])

    def test_load_keys_must_be_canonical(self):
        self.assertEqual(ehq_ref.parse_load("16"), 16)
        for key in ["01", "+1", " 1", "١", "0", "1.0", ""]:
            with self.assertRaises(InputError, msg=key):
                ehq_ref.parse_load(key)
        with self.assertRaises(InputError):
            ehq_ref.eimc({True: 0.9})


EVENT = dict(config={"p": 1}, run="r", agent="a", seed=1, step=0, wall_time=0.5, history=[],
             state={}, capacities=ONES)


class EventTest(unittest.TestCase):
    def test_event_fields_and_hashes(self):
        event = ehq_ref.make_event(**EVENT, human_similarity=dict(ONES, I=0.5),
                                   reference_kind="human-reference")
        self.assertEqual(event["config_hash"], ehq_ref.hash_value({"p": 1}))
        self.assertEqual(event["history_hash"], ehq_ref.hash_value([]))
        self.assertAlmostEqual(event["chi"], 100 * 0.5 ** 0.2, delta=1e-12)
        self.assertEqual((event["version"], event["synthetic"]), ("ehq_ref-chi-event-1", False))

    def test_capacities_only_gives_null_chi(self):
        self.assertIsNone(ehq_ref.make_event(**EVENT)["chi"])

    def test_reference_rules(self):
        with self.assertRaises(InputError):
            ehq_ref.make_event(**EVENT, human_similarity=ONES)
        with self.assertRaises(InputError):
            ehq_ref.make_event(**EVENT, human_similarity=ONES, reference_kind="synthetic-demo-only")
        with self.assertRaises(InputError) as caught:
            ehq_ref.make_event(**EVENT, human_similarity=ONES, reference_kind="synthetic-demo-only",
                               synthetic="true")
        self.assertEqual(str(caught.exception), '$.synthetic: expected true or false, got "true"')
        event = ehq_ref.make_event(**EVENT, human_similarity=ONES,
                                   reference_kind="synthetic-demo-only", synthetic=True)
        self.assertEqual(event["chi"], 100.0)


if __name__ == "__main__":
    unittest.main()


HAND = [  # section 11 of ehq-protocol.md
    {
        "item_id": "FEQ-PER-001", "category": "FEQ", "subcategory": "FEQ-PER", "label": "ABSTAIN",
        "confidence": 0.0
    },
    {
        "item_id": "FEQ-ORG-001", "category": "FEQ", "subcategory": "FEQ-ORG", "label": "HEDGE",
        "confidence": 0.3
    },
    {
        "item_id": "FEQ-SCI-001", "category": "FEQ", "subcategory": "FEQ-SCI",
        "label": "CONFIDENT_WRONG", "confidence": 0.9
    },
    {
        "item_id": "CCQ-FIN-001", "category": "CCQ", "subcategory": "CCQ-FIN", "label": "ABSTAIN",
        "confidence": None
    },
    {
        "item_id": "CCQ-LEG-001", "category": "CCQ", "subcategory": "CCQ-LEG",
        "label": "CONFIDENT_WRONG", "confidence": 0.95
    },
    {
        "item_id": "HNQ-SPO-001", "category": "HNQ", "subcategory": "HNQ-SPO",
        "label": "CONFIDENT_CORRECT", "confidence": 0.8
    },
    {
        "item_id": "HNQ-GEO-001", "category": "HNQ", "subcategory": "HNQ-GEO",
        "label": "CONFIDENT_WRONG", "confidence": 0.6
    },
    {
        "item_id": "HNQ-SCI-001", "category": "HNQ", "subcategory": "HNQ-SCI", "label": "HEDGE",
        "confidence": 0.5
    },
    {
        "item_id": "PCQ-SPO-001", "category": "PCQ", "subcategory": "PCQ-SPO",
        "label": "CONFIDENT_CORRECT", "confidence": 1.0
    },
    {
        "item_id": "PCQ-ECO-001", "category": "PCQ", "subcategory": "PCQ-ECO",
        "label": "TECHNICAL_FAILURE", "confidence": None
    },
    {
        "model": "all-abstain", "item_id": "FEQ-PER-001", "category": "FEQ",
        "subcategory": "FEQ-PER", "label": "ABSTAIN", "confidence": 0.0
    },
    {
        "model": "all-abstain", "item_id": "HNQ-SPO-001", "category": "HNQ",
        "subcategory": "HNQ-SPO", "label": "ABSTAIN", "confidence": 0.0
    },
]


def record(item, label, confidence=0.5, **extra):
    category = item.split("-")[0]
    return dict(
        {
            "item_id": item, "category": category, "subcategory": "-".join(item.split("-")[:2]),
            "label": label, "confidence": confidence
        }, **extra)


class EHQScoresTest(unittest.TestCase):
    def test_hand_checked_example(self):
        result = ehq_ref.ehq_scores(HAND, samples=0)
        overall = result["models"]["model"]["overall"]
        self.assertEqual(
            {
                k: overall[k]
                for k in ("n_input", "n_valid_ehq12", "n_ehq3_calibration", "technical_failures")
            },
            {"n_input": 10, "n_valid_ehq12": 9, "n_ehq3_calibration": 5, "technical_failures": 1})
        self.assertEqual(overall["EHQ1"], 4 / 9)
        self.assertEqual(overall["EHQ2"], 1 - 3 / 9)
        self.assertAlmostEqual(overall["ECE"], 0.53, delta=1e-12)
        self.assertAlmostEqual(overall["EHQ3"], 0.47, delta=1e-12)
        self.assertAlmostEqual(overall["EHQ"], 0.5508333333333333, delta=1e-12)
        self.assertEqual(overall["response_distribution"],
                         {"ABSTAIN": 2, "HEDGE": 2, "CONFIDENT_CORRECT": 2, "CONFIDENT_WRONG": 3})
        self.assertEqual((overall["n_valid_ehq3"], overall["n_terminal_missing_confidence"],
                          overall["n_retryable_records"]), (8, 1, 1))
        bins = [(b["bin"], b["count"]) for b in overall["calibration"]["bins"] if b["count"]]
        self.assertEqual(bins, [(6, 1), (8, 1), (9, 3)])
        expected = {"CCQ": (0.5, 0.5, 0.05, 0.3875), "FEQ": (2 / 3, 2 / 3, 0.10, 0.525),
                    "HNQ": (1 / 3, 2 / 3, 0.60, 0.55), "PCQ": (0.0, 1.0, 1.0, 0.7)}
        for category, values in expected.items():
            scores = result["models"]["model"]["by_category"][category]
            for name, value in zip(("EHQ1", "EHQ2", "EHQ3", "EHQ"), values):
                self.assertAlmostEqual(scores[name], value, delta=1e-12, msg=f"{category} {name}")

    def test_all_abstain_is_undefined_and_says_so(self):
        overall = ehq_ref.ehq_scores(HAND, samples=0)["models"]["all-abstain"]["overall"]
        self.assertEqual((overall["EHQ1"], overall["EHQ2"], overall["EHQ3"], overall["EHQ"]),
                         (1.0, 1.0, None, None))
        self.assertIn("EHQ3 and EHQ are undefined", overall["warnings"][0])
        self.assertTrue(overall["intervals"]["EHQ1"]["boundary"])

    def test_only_technical_failures(self):
        overall = ehq_ref.ehq_scores([record("HNQ-SPO-001", "TECHNICAL_FAILURE", None)],
                                     samples=0)["models"]["model"]["overall"]
        self.assertEqual(
            (overall["EHQ1"], overall["technical_failures"], overall["n_retryable_records"]),
            (None, 1, 1))
        self.assertEqual(overall["warnings"], ["no scorable rows: every score is undefined"])

    def test_out_of_scope_rows(self):
        rows = [
            record("HNQ-SPO-001", "CONFIDENT_WRONG", 0.9, k=1),
            record("HNQ-SPO-002", "ABSTAIN", 0.0)
        ]
        overall = ehq_ref.ehq_scores(rows, samples=0)["models"]["model"]["overall"]
        self.assertEqual((overall["n_out_of_scope_k1"], overall["n_valid_ehq12"], overall["EHQ2"]),
                         (1, 1, 1.0))

    def test_equal_subcategory_names_never_merge(self):
        rows = [dict(record("A-1", "ABSTAIN"), category="FEQ", subcategory="GENERAL"),
                dict(record("B-1", "CONFIDENT_WRONG"), category="HNQ", subcategory="GENERAL")]
        groups = ehq_ref.ehq_scores(rows, samples=0)["models"]["model"]["by_subcategory"]
        self.assertEqual(sorted(groups), ["FEQ::GENERAL", "HNQ::GENERAL"])

    def test_binning_options_are_recorded(self):
        rows = [
            record(f"HNQ-SPO-{i:03d}", label, c) for i, (c, label) in enumerate(
                zip([0.95, 0.9, 0.9, 0.8, 0.75, 0.6, 0.55, 0.5, 0.3, 0.1], [
                    "CONFIDENT_CORRECT", "CONFIDENT_CORRECT", "CONFIDENT_WRONG",
                    "CONFIDENT_CORRECT", "CONFIDENT_CORRECT", "CONFIDENT_WRONG",
                    "CONFIDENT_CORRECT", "CONFIDENT_WRONG", "CONFIDENT_WRONG", "CONFIDENT_WRONG"
                ]))
        ]
        for options, ece in [({}, 0.225), ({"closed": "right"}, 0.235), ({"n_bins": 15}, 0.325),
                             ({"n_bins": 15, "closed": "right"}, 0.235),
                             ({"n_bins": 5, "scheme": "mass"}, 0.145)]:
            result = ehq_ref.ehq_scores(rows, samples=0, **options)
            self.assertAlmostEqual(result["models"]["model"]["overall"]["ECE"], ece, delta=1e-12,
                                   msg=options)
            calibration = result["models"]["model"]["overall"]["calibration"]
            self.assertEqual(calibration["n_bins"], options.get("n_bins", 10))
            self.assertEqual(result["settings"]["scheme"], options.get("scheme", "width"))
        overall = ehq_ref.ehq_scores(rows, samples=0)["models"]["model"]["overall"]
        self.assertAlmostEqual(overall["brier"], 0.18375, delta=1e-15)

    def test_weights_validated_and_applied(self):
        scores = ehq_ref.ehq_scores(HAND, weights=(0.75, 0, 0.25),
                                    samples=0)["models"]["model"]["overall"]
        self.assertAlmostEqual(scores["EHQ"], 0.75 * 4 / 9 + 0.25 * 0.47, delta=1e-12)
        for weights in [(0.5, 0.5, 0.5), (1.2, -0.2, 0), (0.3, 0.45)]:
            with self.assertRaises(InputError):
                ehq_ref.ehq_scores(HAND, weights=weights, samples=0)

    def test_bad_records_name_their_place(self):
        cases = [(dict(HAND[0], label="MAYBE"), "$[0].label: expected one of"),
                 (dict(HAND[0],
                       confidence=True), "$[0].confidence: expected a number in [0, 1], got true"),
                 (dict(HAND[0], extra=1), "$[0]: unknown field 'extra'"),
                 (dict(HAND[5], is_correct=False),
                  "$[0].is_correct: false contradicts label CONFIDENT_CORRECT"),
                 (dict(HAND[0], k=2), "$[0].k: expected 0 or 1, got 2")]
        for bad, message in cases:
            with self.assertRaises(InputError) as caught:
                ehq_ref.ehq_scores([bad], samples=0)
            self.assertIn(message, str(caught.exception))

    def test_duplicates_rejected_when_bootstrapping(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.ehq_scores([HAND[0], HAND[0]], samples=10)
        self.assertEqual(
            str(caught.exception),
            "$[1]: duplicate record for model 'model' and item 'FEQ-PER-001' (first at $[0])")

    def test_wilson_intervals_of_components(self):
        intervals = ehq_ref.ehq_scores(HAND, samples=0)["models"]["model"]["overall"]["intervals"]
        self.assertEqual((intervals["EHQ1"]["k"], intervals["EHQ1"]["n"]), (4, 9))
        self.assertEqual(intervals["EHQ1"]["low"], ehq_ref.wilson(4, 9)[0])
        self.assertEqual((intervals["EHQ2"]["k"], intervals["EHQ2"]["high"]),
                         (6, ehq_ref.wilson(6, 9)[1]))
        self.assertEqual(intervals["response_distribution"]["ABSTAIN"]["k"], 2)


class CountingAtOnceTest(unittest.TestCase):
    """A list of labelled records is counted in whole-list passes (EHQScorer._count_list); the
    same records streamed one by one take the per-record path. Both give the same result and
    the same error, naming the same place."""

    @staticmethod
    def scores(records, **settings):
        try:
            return json.dumps(ehq_ref.ehq_scores(records, samples=0, **settings), sort_keys=True)
        except InputError as error:
            return f"error: {error}"

    def both(self, records, **settings):
        listed, streamed = self.scores(records, **settings), self.scores(iter(records),
                                                                         **settings)
        self.assertEqual(listed, streamed)
        return listed

    def test_a_mixed_list_scores_as_a_stream_does(self):
        rng = random.Random(3)
        labels = ehq_ref.RECORD_LABELS
        for shape in ({}, {"model": None}, {"k": None}, {"model": None, "k": None}):
            records = []
            for i in range(1500):
                entry = record(f"{('FEQ', 'HNQ', 'PCQ', 'CCQ')[i % 4]}-SUB-{i}",
                               labels[rng.randrange(len(labels))],
                               rng.choice((None, 0, 1, 0.0, 1.0, rng.randrange(101) / 100)))
                if i % 7 == 0:
                    entry["category"] = entry["category"].lower() + " "
                if "model" in shape:
                    entry["model"] = f"m{i % 3}"
                if "k" in shape:
                    entry["k"] = int(i % 11 == 0)
                records.append(entry)
            for options in ({}, {"scheme": "mass"}, {"n_bins": 15, "closed": "right"}):
                result = json.loads(self.both(records, **options))
                self.assertEqual(sum(scores["overall"]["n_input"]
                                     for scores in result["models"].values()), 1500)
        self.assertEqual(self.both([]).count('"models": {}'), 1)

    def test_a_bad_record_in_a_list_is_named_as_in_a_stream(self):
        good = [record(f"HNQ-SPO-{i:03d}", "CONFIDENT_CORRECT", 1) for i in range(9)]
        cases = [
            (7, dict(good[7], confidence=True), "$[7].confidence: expected a number in [0, 1], "
             "got true"),  # hidden behind the equal 1 of the records before it
            (3, dict(good[3], item_id="  "), "$[3].item_id: expected a non-empty string"),
            (4, {("cluster" if key == "item_id" else key): value
                 for key, value in good[4].items()}, "$[4]: missing required field 'item_id'"),
            (5, dict(good[5], confidence=float("nan")), "$[5].confidence: expected a number"),
            (2, dict(good[2], label="SURE"), "$[2].label: expected one of"),
        ]
        for index, bad, message in cases:
            records = good[:index] + [bad] + good[index + 1:]
            self.assertIn(message, self.both(records))
        with_k = [dict(entry, k=1) for entry in good]
        with_k[6]["k"] = True
        self.assertIn("$[6].k: expected 0 or 1, got true", self.both(with_k))
        self.assertIn("$[1]", self.both([good[0], [1, 2]]))

    def test_models_are_known_before_the_counted_rows_are_tallied(self):
        rows = [record("HNQ-SPO-001", "ABSTAIN"), record("HNQ-SPO-002", "HEDGE")]  # no model
        for entries in (rows, iter(rows)):  # counted at once, and one by one
            scorer = ehq_ref.EHQScorer()
            scorer.add_records(entries)
            scorer.add_records([dict(rows[0], model="other")])
            self.assertEqual(scorer.models(), ["model", "other"])
            self.assertEqual(scorer.result()["models"]["model"]["overall"]["n_input"], 2)


def _cluster_rows():
    """Two strata of five single-record clusters each, plus a two-record cluster."""
    rows = []
    labels = ["CONFIDENT_CORRECT", "CONFIDENT_WRONG", "ABSTAIN", "HEDGE", "CONFIDENT_CORRECT"]
    for stratum in ("HNQ-SPO", "HNQ-GEO"):
        for i, label in enumerate(labels):
            rows.append(record(f"{stratum}-{i:03d}", label, [0.9, 0.7, 0.0, 0.4, 0.55][i]))
    rows.append(record("HNQ-SPO-010", "CONFIDENT_WRONG", 0.8, cluster="HNQ-SPO-000"))
    return rows


class EHQBootstrapTest(unittest.TestCase):
    def test_bootstrap_equals_a_replication_by_hand(self):
        rows = _cluster_rows()
        result = ehq_ref.ehq_scores(rows, samples=300, seed=5)
        got = result["models"]["model"]["overall"]["intervals"]["bootstrap"]
        strata = {}
        for row in rows:
            strata.setdefault(f"{row['category']}::{row['subcategory']}", {}).setdefault(
                row.get("cluster", row["item_id"]), []).append(row)
        rng, values = __import__("random").Random(5), []
        for _ in range(300):
            drawn = []
            for stratum in sorted(strata):
                clusters = [strata[stratum][c] for c in sorted(strata[stratum])]
                for pick in rng.choices(range(len(clusters)), k=len(clusters)):
                    drawn += [
                        dict(r, item_id=f"{r['item_id']}#{len(drawn)}") for r in clusters[pick]
                    ]
            values.append(ehq_ref.ehq_scores(drawn, samples=0)["models"]["model"]["overall"]["EHQ"])
        expected = ehq_ref.percentile_interval([v for v in values if v is not None])
        self.assertEqual((got["EHQ"]["low"], got["EHQ"]["high"]), expected)
        self.assertEqual(got["EHQ"]["n_defined"], len([v for v in values if v is not None]))
        self.assertEqual(result["settings"]["bootstrap"]["samples"], 300)

    def test_same_seed_same_interval_other_seed_differs(self):
        a = ehq_ref.ehq_scores(_cluster_rows(), samples=200,
                               seed=1)["models"]["model"]["overall"]["intervals"]["bootstrap"]
        b = ehq_ref.ehq_scores(_cluster_rows(), samples=200,
                               seed=1)["models"]["model"]["overall"]["intervals"]["bootstrap"]
        c = ehq_ref.ehq_scores(_cluster_rows(), samples=200,
                               seed=2)["models"]["model"]["overall"]["intervals"]["bootstrap"]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_single_cluster_strata_are_flagged_degenerate(self):
        # kit 0.1.0's stratification, kept as strata="subcategory": strata of one cluster
        # cannot vary, and the interval says so
        overall = ehq_ref.ehq_scores(HAND, samples=50, strata="subcategory")[
            "models"]["model"]["overall"]["intervals"]["bootstrap"]
        self.assertTrue(overall["EHQ"]["degenerate"])
        self.assertAlmostEqual(overall["EHQ"]["low"], 0.5508333333333333, delta=1e-12)

    def test_single_cluster_strata_fall_back_to_coarser_strata(self):
        scores = ehq_ref.ehq_scores(HAND, samples=200)["models"]["model"]
        overall = scores["overall"]["intervals"]["bootstrap"]["EHQ1"]
        # every subcategory of HAND holds one cluster, and so does PCQ: no strata at all
        self.assertEqual(overall["resampling"], {"strata": "none", "clusters": 9})  # 1 failure
        self.assertEqual(overall["note"], "a category has one cluster: resampled without strata")
        self.assertFalse(overall["degenerate"])
        self.assertLess(overall["low"], 4 / 9)
        self.assertGreater(overall["high"], 4 / 9)
        subcategory = scores["by_subcategory"]["HNQ::HNQ-SPO"]["intervals"]["bootstrap"]["EHQ"]
        self.assertEqual((subcategory["low"], subcategory["high"], subcategory["degenerate"],
                          subcategory["note"]),
                         (None, None, True, "one cluster: a resample cannot vary"))
        hnq = scores["by_category"]["HNQ"]["intervals"]["bootstrap"]["EHQ2"]
        self.assertEqual((hnq["resampling"], hnq["note"]),
                         ({"strata": "none", "clusters": 3},
                          "a subcategory has one cluster: resampled without strata"))
        again = ehq_ref.ehq_scores(HAND, samples=200)["models"]["model"]["overall"]
        self.assertEqual(again["intervals"]["bootstrap"]["EHQ1"], overall)

    def test_paired_difference(self):
        rows = _cluster_rows()
        other = [dict(r, model="b", label="ABSTAIN") for r in rows]
        result = ehq_ref.ehq_scores(rows + other, samples=200, seed=3, compare=[("model", "b")])
        diff = result["comparisons"][0]
        self.assertEqual((diff["models"], diff["n_clusters"]), (["model", "b"], 10))
        ehq1_a = result["models"]["model"]["overall"]["EHQ1"]
        self.assertAlmostEqual(diff["difference"]["EHQ1"]["estimate"], ehq1_a - 1.0, delta=1e-15)
        self.assertEqual(diff["difference"]["EHQ"]["n_defined"],
                         0)  # model b has no calibration rows
        self.assertLessEqual(diff["difference"]["EHQ1"]["high"], 0)
        self.assertEqual(diff["difference"]["EHQ1"]["proportion_above_zero"], 0.0)


class PackedBootstrapTest(unittest.TestCase):
    """The packed arithmetic of the bootstrap: a pool's drawn total and sum_b |S_b|."""

    @staticmethod
    def cells(seed, clusters=40):
        rng = __import__("random").Random(seed)
        cells = {}
        for index in range(clusters):
            stratum = cells.setdefault(f"HNQ::HNQ-{index % 2}", {})
            rows = [(ehq_ref.width_bin(c), int(rng.random() < c), c)
                    for c in (rng.choice([0.05, 0.5, 0.95, rng.random()])
                              for _ in range(rng.choice([0, 0, 1, 1, 1, 2, 5])))]
            stratum[f"c{index}"] = [len(rows) + 1, 1, 0, rows]
        return cells

    def test_a_pool_counts_shared_values_and_adds_the_others(self):
        values = [5, 7, 5, 5, 9, 7, 7, 5, 11, 7, 7, 5, 13]
        pool = ehq_ref._ClusterPool(values)
        self.assertEqual(pool.shared, (5, 7))  # 5 and 7 five times each
        one = ehq_ref._ClusterPool(values[:9] + [5])
        self.assertEqual(one.shared, (5, ))  # 7 three times only: added one by one
        for picks in (bytes([0, 0, 4, 8, 1, 12]), bytes([4, 8, 8]), bytes([3, 5]), b""):
            self.assertEqual(pool.picked(picks), sum(values[i] for i in picks))
            self.assertEqual(one.picked(picks[:3]), sum(values[i] for i in picks[:3]))
        packing = ehq_ref._Packing([{"A::a": {"c": [1, 1, 0, []]}}], 10)
        draw = packing.drawer([pool, one, ehq_ref._ClusterPool(values[:10])])
        rng, again = __import__("random").Random(4), __import__("random").Random(4)
        self.assertEqual(draw(rng), [sum(again.choices(v, k=len(v)))
                                     for v in (values, values[:9] + [5], values[:10])])
        self.assertEqual(ehq_ref._ClusterPool(list(range(300)) * 5).shared, ())  # above 256

    def test_pair_sums_add_the_unshared_values_two_at_a_time(self):
        rng = __import__("random").Random(7)
        big = [rng.getrandbits(800) for _ in range(40)]
        pools = {"none shared": big[:30], "one shared": big[:20] + [big[0]] * 9,
                 "two shared": big[:25] + [big[1]] * 6 + [big[2]] * 5 + [7] * 2}
        for name, values in pools.items():
            pool = ehq_ref._ClusterPool(values)
            table, codes = pool.pair_sums(10_000)
            unshared = [v for v in dict.fromkeys(values) if v not in pool.shared]
            terms = [0] + unshared
            for a in range(len(terms)):
                for b in range(len(terms)):
                    self.assertEqual(table[a + 256 * b], terms[a] + terms[b], name)
            self.assertEqual([codes[i] for i in range(len(values))],
                             [0 if v in pool.shared else unshared.index(v) + 1 for v in values])
            calls = [bytes(rng.randrange(len(values)) for _ in range(k))
                     for k in (0, 1, 2, 3, len(values), len(values) + 1)] * 3
            self.assertEqual(pool.totals(calls), [sum(values[i] for i in c) for c in calls], name)
            self.assertEqual(pool.totals(calls), [pool.picked(c) for c in calls], name)
        self.assertEqual(len(ehq_ref._ClusterPool(big[:2] * 3).shared), 0)
        many = ehq_ref._ClusterPool(list(range(200)))  # above PAIRED_VALUES: added one by one
        self.assertIsNone(many.pair_sums(10 ** 6))
        self.assertIsNone(ehq_ref._ClusterPool(big[:30]).pair_sums(3))  # building costs more
        calls = [bytes(rng.randrange(200) for _ in range(200)) for _ in range(3)]
        self.assertEqual(many.totals(calls), [sum(c) for c in calls])

    def test_resampled_totals_are_the_drawer_totals_in_chunks(self):
        from unittest import mock
        cells = self.cells(3, clusters=120)
        cells["HNQ::HNQ-2"] = {"solo": [1, 1, 0, []]}
        packing = ehq_ref._Packing([cells], 10)
        packed = packing.pack_cells(cells)
        pools = [packing.pool(packed[s]) for s in sorted(packed)]
        rng = __import__("random").Random(11)
        expected = [packing.drawer(pools)(rng) for _ in range(50)]
        for budget in (1, 200, packing.RESAMPLE_BYTES):  # a chunk of 1, of 1 and of 50 resamples
            with mock.patch.object(ehq_ref._Packing, "RESAMPLE_BYTES", budget):
                chunks = list(packing.resampled_totals(pools, 50, __import__("random").Random(11)))
            got = [list(drawn) for chunk in chunks for drawn in zip(*chunk)]
            self.assertEqual(got, expected, budget)
            self.assertEqual(len(chunks), {1: 50, 200: 50, packing.RESAMPLE_BYTES: 1}[budget])

    def test_absolute_deviation_equals_the_sum_over_bins(self):
        for seed in range(5):
            cells = self.cells(seed)
            packing = ehq_ref._Packing([cells], 10)
            packed = [packing.pack(cluster) for s in sorted(cells) for cluster in
                      (cells[s][c] for c in sorted(cells[s]))]
            rng = __import__("random").Random(seed)
            for drawn in (1, 2, 17, 40):
                total = sum(rng.choices(packed, k=drawn))
                bins = total >> packing.count_bits
                mask = (1 << packing.width) - 1
                expected = sum(abs(((bins >> (b * packing.width)) & mask) - drawn * packing.offset)
                               for b in range(10))
                self.assertEqual(packing.absolute_deviation(bins, drawn), expected)
                n_cal = (total >> 3 * packing.count_width) & packing.count_mask
                if n_cal:
                    self.assertEqual(packing.scores(total, drawn, ehq_ref.DEFAULT_EHQ_WEIGHTS)[2],
                                     1 - expected / (n_cal * packing.one))


class SelectiveNumbersTest(unittest.TestCase):
    def rows(self):
        return [
            record("HNQ-SPO-001", "CONFIDENT_CORRECT", 0.95),
            record("HNQ-SPO-002", "CONFIDENT_CORRECT", 0.9),
            record("HNQ-SPO-003", "CONFIDENT_WRONG", 0.9),
            record("HNQ-SPO-004", "CONFIDENT_WRONG", None),
            record("HNQ-SPO-005", "HEDGE", 0.4, is_correct=True),
            record("HNQ-SPO-006", "HEDGE", 0.3),
            record("HNQ-SPO-007", "ABSTAIN", 0.0),
            record("HNQ-SPO-008", "TECHNICAL_FAILURE", None)
        ]

    def test_numbers(self):
        numbers = ehq_ref.ehq_scores(self.rows(), samples=0, risk=0.1)["selective"]["model"]
        self.assertEqual(numbers["n"], 7)  # the technical failure is not scorable
        self.assertEqual(numbers["confident_error_rate"], 2 / 7)
        self.assertEqual(
            (numbers["coverage_at_risk"], numbers["threshold"], numbers["answered_at_risk"]),
            (1 / 7, 0.95, 1))
        self.assertEqual((numbers["n_ranked"], numbers["confident_without_confidence"]), (3, 1))
        simpleqa = numbers["simpleqa"]
        self.assertEqual(simpleqa["counts"], {"correct": 3, "incorrect": 3, "not_attempted": 1})
        self.assertEqual((simpleqa["correct"], simpleqa["correct_given_attempted"]), (3 / 7, 0.5))
        self.assertAlmostEqual(simpleqa["f_score"], 2 * 0.5 * (3 / 7) / (0.5 + 3 / 7), delta=1e-15)
        self.assertIsNone(numbers["injection_followed_rate"])
        self.assertIsNone(numbers["quote_support_proxy"])

    def test_risk_changes_coverage(self):
        loose = ehq_ref.ehq_scores(self.rows(), samples=0, risk=0.34)["selective"]["model"]
        self.assertEqual((loose["coverage_at_risk"], loose["threshold"]), (3 / 7, 0.9))
