"""Aggregates: weights, weighted means, profiles, CHI, similarity, Q_M, lure factor, EIMC, events."""

import math
import unittest

from support import ehq_ref

InputError = ehq_ref.InputError
ONES = {"R": 1, "M": 1, "C": 1, "A": 1, "I": 1}


class WeightsTest(unittest.TestCase):
    def test_equal_by_default(self):
        self.assertEqual(ehq_ref.validate_weights(None, ehq_ref.AXES), (0.2,) * 5)

    def test_normalized_mapping(self):
        self.assertEqual(ehq_ref.validate_weights({"R": 2, "M": 2, "C": 2, "A": 2, "I": 2}, ehq_ref.AXES),
                         (0.2,) * 5)

    def test_positive_required_for_geometric(self):
        with self.assertRaises(InputError) as caught:
            ehq_ref.validate_weights({"R": 0, "M": 1, "C": 1, "A": 1, "I": 1}, ehq_ref.AXES)
        self.assertEqual(str(caught.exception), "$.weights.R: expected a positive number, got 0")

    def test_ehq_weights_must_sum_to_one(self):
        self.assertEqual(ehq_ref.validate_weights([0.3, 0.45, 0.25], ehq_ref.EHQ_COMPONENTS,
                                                  normalize=False, allow_zero=True), (0.3, 0.45, 0.25))
        self.assertEqual(ehq_ref.validate_weights([0.75, 0, 0.25], ehq_ref.EHQ_COMPONENTS,
                                                  normalize=False, allow_zero=True), (0.75, 0.0, 0.25))
        with self.assertRaises(InputError) as caught:
            ehq_ref.validate_weights([0.3, 0.45, 0.3], ehq_ref.EHQ_COMPONENTS, normalize=False, allow_zero=True)
        self.assertIn("must sum to 1", str(caught.exception))
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([1.5, -0.5, 0], ehq_ref.EHQ_COMPONENTS, normalize=False, allow_zero=True)

    def test_bool_weight_and_wrong_count(self):
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([True, 1, 1, 1, 1], ehq_ref.AXES)
        with self.assertRaises(InputError):
            ehq_ref.validate_weights([1, 1], ehq_ref.AXES)

    def test_weighted_means(self):
        self.assertEqual(ehq_ref.weighted_arithmetic_mean([1.0, 0.0, 0.5], (0.3, 0.45, 0.25)), 0.425)
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
        self.assertAlmostEqual(ehq_ref.human_similarity([1, 3], [0, 1], [1, 2]), math.exp(-0.5), delta=1e-15)
        for z, mu, scales in [([1], [1, 2], [1]), ([], [], []), ([1], [1], [0]), ([True], [1], [1])]:
            with self.assertRaises(InputError):
                ehq_ref.human_similarity(z, mu, scales)


class QmAndLureTest(unittest.TestCase):
    def test_q_m(self):
        factors = {"r": 1, "t": 1, "s": 1, "u": 1, "i": 1, "f": 0}
        self.assertEqual(ehq_ref.q_m(factors), 1.0)
        self.assertEqual(ehq_ref.q_m(dict(factors, f=1)), 0.0)
        self.assertAlmostEqual(ehq_ref.q_m(dict(factors, r=0.64, f=0.36)), (0.64 * 0.64) ** (1 / 6), delta=1e-15)

    def test_q_m_missing_factor_is_none_but_supplied_ones_are_checked(self):
        self.assertIsNone(ehq_ref.q_m({"r": 0.9, "t": 0.9}))
        with self.assertRaises(InputError) as caught:
            ehq_ref.q_m({"r": 1.2})
        self.assertEqual(str(caught.exception), "$.factors.r: expected a number in [0, 1], got 1.2")

    def test_lure_example(self):
        self.assertEqual(ehq_ref.lure_factor(6, 2, 2), {"n_lures": 10, "f": 0.4, "f_raw": 0.2, "invalid_rate": 0.2})

    def test_no_lures(self):
        self.assertEqual(ehq_ref.lure_factor(0, 0, 0), {"n_lures": 0, "f": None, "f_raw": None, "invalid_rate": None})
        with self.assertRaises(InputError):
            ehq_ref.lure_factor(1, -1, 0)


class EimcTest(unittest.TestCase):
    def test_right_censored(self):
        result = ehq_ref.eimc({1: 0.95, 2: 0.85}, 0.8)
        self.assertEqual((result["eimc"], result["status"], result["right_censored"]), (2, "lower_bound", True))
        self.assertEqual(result["sustained_prefix_eimc"], 2)

    def test_largest_passing_and_nonmonotonic(self):
        result = ehq_ref.eimc({1: 0.9, 2: 0.7, 4: 0.85, 8: 0.6}, 0.8)
        self.assertEqual((result["eimc"], result["status"]), (4, "largest_passing_tested"))
        self.assertEqual(result["sustained_prefix_eimc"], 1)
        self.assertEqual(result["passing"], [1, 4])
        self.assertEqual(result["warnings"], ["nonmonotonic: Q_M rises from 0.7 at N=2 to 0.85 at N=4"])

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


EVENT = dict(config={"p": 1}, run="r", agent="a", seed=1, step=0, wall_time=0.5, history=[], state={},
             capacities=ONES)


class EventTest(unittest.TestCase):
    def test_event_fields_and_hashes(self):
        event = ehq_ref.make_event(**EVENT, human_similarity=dict(ONES, I=0.5), reference_kind="human-reference")
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
            ehq_ref.make_event(**EVENT, human_similarity=ONES, reference_kind="synthetic-demo-only", synthetic="true")
        self.assertEqual(str(caught.exception), '$.synthetic: expected true or false, got "true"')
        event = ehq_ref.make_event(**EVENT, human_similarity=ONES, reference_kind="synthetic-demo-only",
                                   synthetic=True)
        self.assertEqual(event["chi"], 100.0)


if __name__ == "__main__":
    unittest.main()
