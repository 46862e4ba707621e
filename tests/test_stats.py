"""Statistics: Wilson (plain and continuity-corrected), quantiles, bootstrap, ECE, Brier."""

import math
import random
import unittest
from decimal import Decimal, getcontext
from fractions import Fraction

from support import ehq_ref

# k, n, Wilson L, U, Wilson-cc L, U  (stats.md 3.1, 6 decimals)
WILSON_VECTORS = [
    (81, 263, 0.255289, 0.366210, 0.253509, 0.368176),
    (15, 148, 0.062386, 0.160487, 0.059778, 0.164450),
    (0, 20, 0.000000, 0.161125, 0.000000, 0.200453),
    (1, 29, 0.006113, 0.171755, 0.001803, 0.196282),
    (29, 29, 0.883030, 1.000000, 0.854384, 1.000000),
    (5, 10, 0.236593, 0.763407, 0.201423, 0.798577),
    (0, 1, 0.000000, 0.793451, 0.000000, 0.945379),
]


def _wilson_decimal(k, n, continuity):
    """The same closed forms evaluated in 50-digit decimal arithmetic (the exact reference)."""
    getcontext().prec = 50
    z = Decimal(repr(ehq_ref.normal_quantile_two_sided(0.95)))
    k, n = Decimal(k), Decimal(n)
    p = k / n
    if continuity:
        q = 1 - p
        low = Decimal(0) if k == 0 else (2 * n * p + z * z - 1 - z *
                                         (z * z - 2 - 1 / n + 4 * p *
                                          (n * q + 1)).sqrt()) / (2 * (n + z * z))
        high = Decimal(1) if k == n else (2 * n * p + z * z + 1 + z *
                                          (z * z + 2 - 1 / n + 4 * p *
                                           (n * q - 1)).sqrt()) / (2 * (n + z * z))
    else:
        center = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * (p * (1 - p) / n + z * z / (4 * n * n)).sqrt() / (1 + z * z / n)
        low = Decimal(0) if k == 0 else center - half
        high = Decimal(1) if k == n else center + half
    return float(max(Decimal(0), low)), float(min(Decimal(1), high))


class WilsonTest(unittest.TestCase):
    def test_vectors_plain(self):
        for k, n, low, high, _, _ in WILSON_VECTORS:
            got = ehq_ref.wilson(k, n)
            self.assertAlmostEqual(got[0], low, delta=5e-7, msg=f"{k}/{n}")
            self.assertAlmostEqual(got[1], high, delta=5e-7, msg=f"{k}/{n}")
            exact = _wilson_decimal(k, n, False)
            self.assertAlmostEqual(got[0], exact[0], delta=1e-12)
            self.assertAlmostEqual(got[1], exact[1], delta=1e-12)

    def test_vectors_continuity_corrected(self):
        for k, n, _, _, low, high in WILSON_VECTORS:
            got = ehq_ref.wilson(k, n, continuity=True)
            self.assertAlmostEqual(got[0], low, delta=5e-7, msg=f"{k}/{n}")
            self.assertAlmostEqual(got[1], high, delta=5e-7, msg=f"{k}/{n}")
            exact = _wilson_decimal(k, n, True)
            self.assertAlmostEqual(got[0], exact[0], delta=1e-12)
            self.assertAlmostEqual(got[1], exact[1], delta=1e-12)

    def test_boundaries_are_exact(self):
        self.assertEqual(ehq_ref.wilson(0, 20)[0], 0.0)
        self.assertEqual(ehq_ref.wilson(29, 29)[1], 1.0)
        self.assertIsNone(ehq_ref.wilson(0, 0))

    def test_bad_arguments(self):
        for args in [(True, 3), (4, 3), (-1, 3), (1.5, 3)]:
            with self.assertRaises(ehq_ref.InputError):
                ehq_ref.wilson(*args)

    def test_proportion_flags_boundary_cells(self):
        cell = ehq_ref.proportion(0, 12)
        self.assertEqual((cell["value"], cell["low"], cell["boundary"]), (0.0, 0.0, True))
        self.assertFalse(ehq_ref.proportion(3, 12)["boundary"])
        self.assertEqual(ehq_ref.proportion(0, 0)["value"], None)


class QuantileAndBootstrapTest(unittest.TestCase):
    def test_type7_quantile(self):
        self.assertEqual(ehq_ref.quantile([1, 2, 3, 4], 0.25), 1.75)
        self.assertEqual(ehq_ref.quantile([1, 2, 3, 4], 1.0), 4)
        self.assertEqual(ehq_ref.quantile([5], 0.5), 5)
        low, high = ehq_ref.percentile_interval(range(1, 41))
        self.assertAlmostEqual(low, 1.975, delta=1e-14)
        self.assertAlmostEqual(high, 39.025, delta=1e-14)

    def test_cluster_bootstrap_matches_a_manual_replication(self):
        clusters = [[1.0, 0.0], [1.0], [0.0, 0.0, 1.0], [1.0, 1.0]]

        def pooled_mean(drawn):
            items = [x for cluster in drawn for x in cluster]
            return sum(items) / len(items)

        rng = random.Random(7)
        manual = sorted(pooled_mean(rng.choices(clusters, k=4)) for _ in range(500))
        expected = (ehq_ref.quantile(manual, 0.025), ehq_ref.quantile(manual, 0.975))
        self.assertEqual(ehq_ref.cluster_bootstrap(clusters, pooled_mean, samples=500, seed=7),
                         expected)

    def test_cluster_bootstrap_edge_cases(self):
        self.assertIsNone(ehq_ref.cluster_bootstrap([[1]], len))
        self.assertIsNone(ehq_ref.cluster_bootstrap([[1], [2]], lambda drawn: None, samples=10))
        a = ehq_ref.cluster_bootstrap([[1], [2], [3]], lambda d: sum(x[0] for x in d), samples=50,
                                      seed=3)
        b = ehq_ref.cluster_bootstrap([[1], [2], [3]], lambda d: sum(x[0] for x in d), samples=50,
                                      seed=3)
        self.assertEqual(a, b)

    def test_statistic_receives_duplicates(self):
        seen = []
        clusters = [["a"], ["b"]]
        ehq_ref.cluster_bootstrap(clusters, lambda drawn: seen.append("".join(c[0] for c in drawn))
                                  or 0, samples=20, seed=1)
        rng = random.Random(1)
        self.assertEqual(seen, ["".join(c[0] for c in rng.choices(clusters, k=2))
                                for _ in range(20)])
        self.assertTrue({"aa", "bb"} & set(seen))  # drawn with replacement: a cluster can repeat
        self.assertEqual({len(draw) for draw in seen}, {2})


def _words(*randoms):
    """getrandbits-style words whose draws are the given 53-bit m (random() = m * 2^-53), the
    low bits that random() drops set to ones (they must not matter)."""
    words = 0
    for i, m in enumerate(randoms):
        w0, w1 = (m >> 26) << 5 | 0x1F, (m & (2**26 - 1)) << 6 | 0x3F
        words |= (w0 | w1 << 32) << (64 * i)
    return words


def _float_index(m, n):
    """choices' own rule: floor(random() * n) with random() = m * 2^-53."""
    return int(m * 2.0**-53 * n // 1)


class ChoiceIndicesTest(unittest.TestCase):
    def test_equal_runs(self):
        self.assertEqual(ehq_ref.equal_runs([150, 150, 76, 75, 75, 150]),
                         [(150, 2), (76, 1), (75, 2), (150, 1)])
        self.assertEqual(ehq_ref.equal_runs([]), [])

    SIZES = (0, 1, 2, 3, 7, 150, 255, 256, 257, 1000, 2047, 2048, 2049, 4999, 5000)

    def test_the_same_indices_and_generator_state_as_choices(self):
        sizes = random.Random(99)
        for seed in range(60):
            bulk, plain = random.Random(seed), random.Random(seed)
            for n in self.SIZES[seed % 3::3] + (sizes.randint(1, 5000), sizes.randint(1, 300)):
                picks, = ehq_ref.draw_choice_indices(bulk, n)
                self.assertEqual(list(picks), plain.choices(range(n), k=n), (seed, n))
                self.assertIsInstance(picks, bytes if n <= 256 else list)
                self.assertEqual(bulk.getstate(), plain.getstate(), (seed, n))
            for n, times in ((150, 5), (75, 3), (300, 2), (3000, 2)):  # runs of equal draws
                calls = ehq_ref.draw_choice_indices(bulk, n, times)
                self.assertEqual([list(c) for c in calls],
                                 [plain.choices(range(n), k=n) for _ in range(times)])
            self.assertEqual(bulk.random(), plain.random())

    def test_large_populations_and_big_endian_hosts_use_choices(self):
        from unittest import mock
        for n, byteorder in ((70_000, "little"), (300, "big"), (20, "big")):
            bulk, plain = random.Random(n), random.Random(n)
            with mock.patch.object(ehq_ref.sys, "byteorder", byteorder):
                picks, = ehq_ref.draw_choice_indices(bulk, n)
            self.assertEqual(list(picks), plain.choices(range(n), k=n))
            self.assertEqual(bulk.getstate(), plain.getstate())

    def test_a_tie_rounded_up_by_the_float_product(self):
        m = (2**54 - 1) // 3  # m * 3 / 2^53 = 2 - 2^-53: exactly below 2, rounds (to even) to 2.0
        self.assertEqual(m * 3 // 2**53, 1)
        self.assertEqual(_float_index(m, 3), 2)
        self.assertEqual(list(ehq_ref.choice_indices(_words(m, m, 2**52, m), 4)[0]),
                         [_float_index(m, 4), _float_index(m, 4), 2, _float_index(m, 4)])
        self.assertEqual([list(c) for c in ehq_ref.choice_indices(_words(m, 0, m, 0, m, m), 3,
                                                                  2)], [[2, 0, 2], [0, 2, 2]])

    def test_draws_next_to_a_boundary_follow_the_float_rule(self):
        for n in (3, 7, 150, 255, 256, 1000, 2047, 2048, 3001, 65535):
            randoms = []
            for j in (1, n // 2, n - 1):
                exact = -(-j * 2**53 // n)  # the smallest m with m * n / 2^53 >= j
                randoms += [m for m in range(exact - 4, exact + 3) if 0 <= m < 2**53]
            randoms += [0, 2**53 - 1]
            got = []
            for start in range(0, len(randoms), n):  # n draws per call
                chunk = randoms[start:start + n] + [0] * (n - len(randoms[start:start + n]))
                got += list(ehq_ref.choice_indices(_words(*chunk), n)[0])[:len(chunk)]
            self.assertEqual(got[:len(randoms)], [_float_index(m, n) for m in randoms], n)

    def test_tie_at_every_size_below_a_power_of_two(self):
        # m * n = 2^53 * j - 1 exactly can only be a tie, rounding up, when n is small; either way
        # the bulk draw must give what the float product gives
        for n in range(1, 600):
            for j in range(1, n):
                if (j * 2**53 - 1) % n == 0:
                    m = (j * 2**53 - 1) // n
                    self.assertEqual(ehq_ref.choice_indices(_words(*[m] * n), n)[0][0],
                                     _float_index(m, n), (n, j))


CONF = [0.95, 0.9, 0.9, 0.8, 0.75, 0.6, 0.55, 0.5, 0.3, 0.1]
CORRECT = [1, 1, 0, 1, 1, 0, 1, 0, 0, 0]


class CalibrationTest(unittest.TestCase):
    def test_ece_vector_under_each_convention(self):
        for n_bins, closed, expected in [(10, "right", 0.235), (10, "left", 0.225),
                                         (15, "right", 0.235), (15, "left", 0.325)]:
            got = ehq_ref.expected_calibration_error(CONF, CORRECT, n_bins=n_bins, closed=closed)
            self.assertAlmostEqual(got, expected, delta=1e-12, msg=f"{n_bins} {closed}")

    def test_published_binning_edges(self):
        self.assertEqual([ehq_ref.width_bin(k / 100, 10, "left") for k in (0, 29, 30, 99, 100)],
                         [0, 2, 3, 9, 9])
        self.assertEqual([ehq_ref.width_bin(k / 100, 10, "right") for k in (0, 10, 11, 30, 100)],
                         [0, 0, 1, 2, 9])
        for k in range(101):  # the published rule equals min(int(c * M), M - 1) for k/100
            self.assertEqual(ehq_ref.width_bin(k / 100, 10, "left"), min(int(k / 100 * 10), 9))

    def test_reliability_table(self):
        table = ehq_ref.calibration_table(CONF, CORRECT, n_bins=10, closed="right")
        bin8 = table["bins"][8]
        self.assertEqual((bin8["count"], bin8["accuracy"]), (2, 0.5))
        self.assertAlmostEqual(bin8["mean_confidence"], 0.9, delta=1e-15)
        self.assertAlmostEqual(bin8["gap"], 0.4, delta=1e-15)
        self.assertEqual(table["bins"][1], {"bin": 1, "low": 0.1, "high": 0.2, "count": 0,
                                            "mean_confidence": None, "accuracy": None, "gap": None})
        self.assertAlmostEqual(table["mce"], 0.5, delta=1e-15)

    def test_equal_mass_bins_keep_ties_together(self):
        table = ehq_ref.calibration_table(CONF, CORRECT, n_bins=5, scheme="mass")
        self.assertEqual([b["count"] for b in table["bins"]], [2, 2, 2, 3, 1])
        self.assertAlmostEqual(table["ece"], 0.145, delta=1e-12)
        self.assertIsNone(table["closed"])

    def test_empty_and_bad_conventions(self):
        self.assertIsNone(ehq_ref.calibration_table([], []))
        with self.assertRaises(ehq_ref.InputError):
            ehq_ref.calibration_table([0.5], [1], closed="middle")
        with self.assertRaises(ehq_ref.InputError):
            ehq_ref.calibration_table([0.5], [1], scheme="quantile")

    def test_ece_is_exact(self):
        # 0.1 + 0.2 style rounding never leaks in: three rows of 0.1 all wrong give ECE 0.1 exactly.
        self.assertEqual(ehq_ref.expected_calibration_error([0.1, 0.1, 0.1], [0, 0, 0]), 0.1)

    def test_brier(self):
        self.assertAlmostEqual(ehq_ref.brier_score(CONF, CORRECT), 0.18375, delta=1e-15)
        self.assertIsNone(ehq_ref.brier_score([], []))


if __name__ == "__main__":
    unittest.main()


class SelectiveStatsTest(unittest.TestCase):
    def test_coverage_at_takes_ties_as_a_group(self):
        self.assertEqual(ehq_ref.coverage_at([0.9, 0.9], [1, 0], 0.9), 0.0)
        self.assertIsNone(ehq_ref.threshold_for([0.9, 0.9], [1, 0], 0.9))
        self.assertEqual(ehq_ref.coverage_at([0.91, 0.9], [1, 0], 0.9), 0.5)
        self.assertEqual(ehq_ref.threshold_for([0.91, 0.9], [1, 0], 0.9), 0.91)

    def test_coverage_at_is_a_maximum_not_a_prefix(self):
        self.assertEqual(ehq_ref.coverage_at([0.99] + [0.9] * 9 + [0.5], [0] + [1] * 9 + [0], 0.9),
                         10 / 11)
        self.assertEqual(ehq_ref.coverage_at([], [], 0.9), 0.0)

    def test_accuracy_boundary_is_exact(self):
        # 9 of 10 correct is exactly 0.9: floating noise must not turn it away
        self.assertEqual(ehq_ref.coverage_at([0.8] * 10, [1] * 9 + [0], 0.9), 1.0)
        self.assertEqual(ehq_ref.exact_fraction(0.1), Fraction(1, 10))

    def test_aurc_example(self):
        levels = ehq_ref.confidence_levels(CONF, CORRECT)
        self.assertAlmostEqual(ehq_ref.aurc(levels), 7489 / 25200,
                               delta=1e-15)  # fsum: within one rounding
        self.assertAlmostEqual(ehq_ref.aurc(levels), 0.297183, delta=1e-6)
        self.assertAlmostEqual(ehq_ref.optimal_aurc(10, 5), 0.177183, delta=1e-6)
        self.assertAlmostEqual(
            ehq_ref.aurc(levels) - ehq_ref.optimal_aurc(10, 5), 0.12, delta=1e-12)
        self.assertIsNone(ehq_ref.aurc([]))
        self.assertEqual(ehq_ref.optimal_aurc(4, 0), 0.0)

    def test_aurc_is_the_mean_over_tie_orders(self):
        def plain(order):
            errors, total = 0, 0.0
            for k, y in enumerate(order, start=1):
                errors += 1 - y
                total += errors / k
            return total / len(order)
        # the two orders of the 0.9 tie
        first = plain([1, 1, 0, 1, 1, 0, 1, 0, 0, 0])
        second = plain([1, 0, 1, 1, 1, 0, 1, 0, 0, 0])
        self.assertAlmostEqual(ehq_ref.aurc(ehq_ref.confidence_levels(CONF, CORRECT)),
                               (first + second) / 2, delta=1e-15)

    def test_aurc_terms_are_the_docstring_terms_bit_for_bit(self):
        # the docstring's term (E_prev * m + j * e) / (m * (N_prev + j)) summed with fsum, one
        # term at a time, over groups with no errors, only errors and big ties
        def by_definition(levels):
            terms, seen, errors_before = [], 0, 0
            for _, m, k in levels:
                e = m - k
                terms += [(errors_before * m + j * e) / (m * (seen + j)) for j in range(1, m + 1)]
                seen, errors_before = seen + m, errors_before + e
            return math.fsum(terms) / seen
        rng = random.Random(7)
        for _ in range(200):
            levels, confidence = [], 1.0
            for _ in range(rng.randrange(1, 12)):
                m = rng.choice((1, 2, 3, 7, 40, 333))
                levels.append((confidence, m, rng.choice((0, m, rng.randrange(m + 1)))))
                confidence -= 0.01
            self.assertEqual(ehq_ref.aurc(levels), by_definition(levels))
        n, errors = 1000, 377
        self.assertEqual(ehq_ref.optimal_aurc(n, errors),
                         math.fsum((k - 623) / k for k in range(624, 1001)) / n)
        self.assertEqual(ehq_ref.aurc([(0.5, 4, 0)]), math.fsum([1, 1, 1, 1]) / 4)

    def test_risk_coverage_curve(self):
        curve = ehq_ref.risk_coverage_curve(ehq_ref.confidence_levels(CONF, CORRECT), n_total=20)
        self.assertEqual([p["answered"] for p in curve][:3], [1, 3, 4])
        self.assertEqual([round(p["risk"], 3) for p in curve],
                         [0.0, 0.333, 0.25, 0.2, 0.333, 0.286, 0.375, 0.444, 0.5])
        self.assertEqual(curve[1]["coverage"], 3 / 20)
        self.assertEqual((curve[1]["accuracy_low"], curve[1]["accuracy_high"]),
                         ehq_ref.wilson(2, 3))


class DoctestTest(unittest.TestCase):
    def test_docstring_examples(self):
        import doctest
        result = doctest.testmod(ehq_ref, verbose=False)
        self.assertEqual(result.failed, 0)
        self.assertGreaterEqual(result.attempted, 5)
