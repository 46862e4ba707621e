"""The development corpus: realistic answers and confidence replies with careful labels.

tests/corpus holds 12,019 answers (1,454 phrasing families, all four categories, 2,605 fixture
items in the EHQ-3000 schema) and 5,920 confidence replies (618 families), each with its label
or value and a one-line rationale. Rounds 2 to 22 and 25 to 27 (answers_round2-27.json,
confidence_round2-27.json) were written blind, by sessions that never saw the classifier, and
first read as held-out sets;
their misses then shaped ehq_ref-2. Agreement is reported per family and per category for every
classifier (set EHQ_REF_CORPUS_REPORT=1 to print it); ehq_ref-2 must agree on >= 98% of the
labels and >= 99% of the confidence values, and the frozen classifiers must give exactly the
readings recorded for them (frozen_readings.json).
"""

import collections
import json
import os
import sys
import unittest

from support import ROOT, ehq_ref

CORPUS = os.path.join(ROOT, "tests", "corpus")
ANSWER_FILES = ("answers_feq_ccq.json", "answers_pcq_hnq.json", "answers_round2.json",
                "answers_round3.json", "answers_round4.json", "answers_round5.json",
                "answers_round6.json", "answers_round7.json",
                "answers_round8.json", "answers_round9.json", "answers_round10.json",
                "answers_round11.json", "answers_round12.json",
                "answers_round13.json", "answers_round14.json", "answers_round15.json",
                "answers_round16.json", "answers_round17.json",
                "answers_round18.json", "answers_round19.json",
                "answers_round20.json", "answers_round21.json", "answers_round22.json",
                "answers_round25.json", "answers_round26.json",
                "answers_round27.json")
REPLY_FILES = ("confidence_replies.json", "confidence_round2.json", "confidence_round3.json",
               "confidence_round4.json", "confidence_round5.json",
               "confidence_round6.json", "confidence_round7.json",
               "confidence_round8.json", "confidence_round9.json",
               "confidence_round10.json", "confidence_round11.json",
               "confidence_round12.json", "confidence_round13.json",
               "confidence_round14.json", "confidence_round15.json",
               "confidence_round16.json", "confidence_round17.json",
               "confidence_round18.json", "confidence_round19.json",
               "confidence_round20.json", "confidence_round21.json",
               "confidence_round22.json", "confidence_round25.json",
               "confidence_round26.json", "confidence_round27.json")


# Each blind round, by id prefix: (ehq_ref-2 agreeing now, size, agreeing when first read
# blind, before any change). Value and null reason must both agree for a confidence reply.
BLIND_ROUNDS = {
    "answers": {"HO-": (469, 476, 442), "H3": (559, 559, 514), "H4": (585, 585, 537),
                "H5": (475, 477, 440), "H6": (436, 436, 405), "H7": (442, 442, 410),
                "H8": (434, 437, 402), "H9": (453, 459, 411),
                "H10": (445, 445, 407), "H11": (445, 448, 411),
                "H12": (461, 461, 446), "H13": (450, 456, 438), "H14": (468, 468, 453),
                "H15": (473, 473, 458), "H16": (453, 453, 445),
                "H17": (474, 474, 460), "H18": (462, 462, 449),
                "H19": (471, 471, 460), "H20": (473, 473, 460),
                "H21": (471, 471, 461), "H22": (458, 458, 453),
                "H25": (468, 470, 449), "H26": (460, 462, 444),
                "H27": (460, 460, 428)},
    "confidences": {"H3C-": (237, 237, 227), "H4C-": (233, 233, 224), "H5C-": (240, 240, 222),
                    "H6C-": (222, 222, 202), "H7C-": (224, 224, 214),
                    "H8C-": (228, 228, 206), "H9C-": (224, 224, 205),
                    "H10C-": (227, 227, 181), "H11C-": (222, 222, 201),
                    "H12C-": (226, 227, 221), "H13C-": (242, 242, 241),
                    "H14C-": (219, 219, 218), "H15C-": (226, 226, 224),
                    "H16C-": (229, 229, 227), "H17C-": (228, 228, 225),
                    "H18C-": (223, 223, 219), "H19C-": (230, 230, 227),
                    "H20C-": (221, 221, 219), "H21C-": (222, 222, 221),
                    "H22C-": (226, 226, 225), "H25C-": (235, 235, 234),
                    "H26C-": (236, 236, 230), "H27C-": (240, 240, 228)},
}


def load(name):
    return ehq_ref.load_json_file(os.path.join(CORPUS, name))


def answers():
    """(answer entry, its item) for every corpus answer (the writers' "leaky" marks removed)."""
    for name in ANSWER_FILES:
        document = load(name)
        items = {item["question_id"]: {k: v for k, v in item.items() if k != "leaky"}
                 for item in document["items"]}
        for entry in document["answers"]:
            yield entry, items[entry["item"]]


def replies():
    return [reply for name in REPLY_FILES for reply in load(name)["replies"]]


def read_value(classifier, reply):
    """(value, reason) of a reply under a classifier; None when it does not read the scale."""
    try:
        found = ehq_ref.parse_confidence(reply["reply"], classifier, scale=reply["scale"],
                                         answer=reply["answer"])
    except ehq_ref.InputError:
        return None
    return [found["value"], found["reason"]]


def agreement(pairs):
    """{key: (agree, total)} from (key, agrees) pairs."""
    table = collections.defaultdict(lambda: [0, 0])
    for key, agrees in pairs:
        table[key][0] += agrees
        table[key][1] += 1
    return dict(table)


def share(cell):
    return cell[0] / cell[1]


class CorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.answers = list(answers())
        cls.replies = replies()
        cls.labels = {name: [ehq_ref.classify(entry["answer"], item, name)
                             for entry, item in cls.answers] for name in ehq_ref.CLASSIFIERS}
        cls.values = {name: [read_value(name, reply) for reply in cls.replies]
                      for name in ehq_ref.CLASSIFIERS}
        if os.environ.get("EHQ_REF_CORPUS_REPORT"):
            cls.report()

    @classmethod
    def report(cls):
        lines = []
        for name in ehq_ref.CLASSIFIERS:
            by_category = agreement((item["category"], got["label"] == entry["label"])
                                    for (entry, item), got in zip(cls.answers, cls.labels[name]))
            by_family = agreement((entry["family"], got["label"] == entry["label"])
                                  for (entry, _), got in zip(cls.answers, cls.labels[name]))
            values = agreement((reply["family"], got is not None and got[0] == reply["value"])
                               for reply, got in zip(cls.replies, cls.values[name]))
            total = [sum(c[0] for c in by_category.values()),
                     sum(c[1] for c in by_category.values())]
            lines.append(f"{name}: labels {total[0]}/{total[1]} ({share(total):.1%}); " + ", ".join(
                f"{k} {share(v):.1%}" for k, v in sorted(by_category.items())))
            worst = sorted(by_family.items(), key=lambda kv: share(kv[1]))[:5]
            lines.append("  weakest label families: " + ", ".join(
                f"{k} {v[0]}/{v[1]}" for k, v in worst))
            read = [sum(c[0] for c in values.values()), sum(c[1] for c in values.values())]
            lines.append(f"  confidences {read[0]}/{read[1]} ({share(read):.1%})")
        sys.stderr.write("\n" + "\n".join(lines) + "\n")

    def test_corpus_size_and_shape(self):
        families = {entry["family"] for entry, _ in self.answers}
        categories = {item["category"] for _, item in self.answers}
        self.assertGreaterEqual(len(self.answers), 600)
        self.assertGreaterEqual(len(families), 60)
        self.assertEqual(categories, set(ehq_ref.CATEGORIES))
        self.assertGreaterEqual(len(self.replies), 250)
        for entry, _ in self.answers:
            self.assertIn(entry["label"], ehq_ref.LABELS)
            self.assertTrue(entry["rationale"].strip(), entry["id"])
        for reply in self.replies:
            self.assertEqual(reply["value"] is None, reply["null_reason"] is not None, reply["id"])

    def test_fixture_items_validate(self):
        for name in ANSWER_FILES:
            items = [{k: v for k, v in item.items() if k != "leaky"}
                     for item in load(name)["items"]]
            report = ehq_ref.validate_items(items)
            self.assertTrue(report["valid"], [i for i in report["issues"]][:3])

    def test_ehq_ref_2_reads_answers_as_the_annotators_did(self):
        got = self.labels["ehq_ref-2"]
        by_category = agreement((item["category"], label["label"] == entry["label"])
                                for (entry, item), label in zip(self.answers, got))
        agree = sum(c[0] for c in by_category.values())
        misses = [(entry["id"], entry["label"], label["label"])
                  for (entry, _), label in zip(self.answers, got)
                  if label["label"] != entry["label"]]
        self.assertGreaterEqual(agree / len(got), 0.98, misses[:10])
        for category, cell in by_category.items():
            self.assertGreaterEqual(share(cell), 0.95, category)
        for prefix, expected in BLIND_ROUNDS["answers"].items():
            agrees = [label["label"] == entry["label"] for (entry, _), label
                      in zip(self.answers, got) if entry["id"].startswith(prefix)]
            self.assertEqual((sum(agrees), len(agrees)), expected[:2], prefix)

    def test_ehq_ref_2_reads_confidences_as_a_person_does(self):
        got = self.values["ehq_ref-2"]
        agree = [reply["id"] for reply, value in zip(self.replies, got)
                 if value is not None and value[0] == reply["value"]]
        misses = [(r["id"], r["reply"], r["value"], v) for r, v in zip(self.replies, got)
                  if v is None or v[0] != r["value"]]
        self.assertGreaterEqual(len(agree) / len(self.replies), 0.99, misses[:10])
        for prefix, expected in BLIND_ROUNDS["confidences"].items():
            agrees = [value == [reply["value"], reply["null_reason"]] for reply, value
                      in zip(self.replies, got) if reply["id"].startswith(prefix)]
            self.assertEqual((sum(agrees), len(agrees)), expected[:2], prefix)

    def test_frozen_classifiers_give_their_recorded_readings(self):
        frozen = load("frozen_readings.json")
        for name in ("ehq-1.1.4", "ehq_ref-1"):
            self.assertTrue(ehq_ref.CLASSIFIERS[name].frozen)
            for (entry, _), result in zip(self.answers, self.labels[name]):
                self.assertEqual([result["label"], result["is_correct"]],
                                 frozen["answers"][entry["id"]][name], (name, entry["id"]))
            for reply, value in zip(self.replies, self.values[name]):
                self.assertEqual(value, frozen["confidences"][reply["id"]][name],
                                 (name, reply["id"]))

    def test_the_published_classifier_is_far_from_the_annotators(self):
        # the phenomenon the corpus measures: the published rules misread about half of it
        agree = sum(label["label"] == entry["label"]
                    for (entry, _), label in zip(self.answers, self.labels["ehq-1.1.4"]))
        self.assertEqual(agree, 7249)  # rounds 1-2: 627, 3: 270, 4: 354, 5: 258, 6: 251, 7: 225,
        # 8: 275, 9: 251, 10: 245, 11: 268, 12: 309, 13: 278, 14: 284,
        # 15: 301, 16: 292, 17: 285, 18: 308, 19: 319, 20: 290, 21: 294, 22: 295,
        # 25: 344, 26: 322, 27: 304


if __name__ == "__main__":
    unittest.main()
