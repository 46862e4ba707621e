"""Review of rounds 9 and 10 (ehq_ref-2): the rewritten checks keep their readings, and odd
input never raises."""

import unittest

from support import ehq_ref

ITEM = {"question_id": "FEQ-PER-901", "category": "FEQ", "subcategory": "FEQ-PER",
        "question": "Who was the last emperor of the Nguyen dynasty?",
        "entity_name": "Nguyen dynasty", "entity_type": "dynasty",
        "correct_answer": "Bao Dai", "acceptable_answers": ["Bao Dai"]}


class ReviewSixTest(unittest.TestCase):
    def test_advice_modal_takes_its_whitespace_whole_and_keeps_its_reading(self):
        modal = ehq_ref.ADVICE_MODAL
        self.assertIsNotNone(modal.match("might   be the "))
        self.assertIsNotNone(modal.match("could also be your  "))
        self.assertIsNone(modal.match("might be X"))
        self.assertIsNone(modal.match("might" + " " * 5000 + "x"))

    def test_a_bare_no_is_a_correction_only_after_content(self):
        context = ehq_ref.AnswerContext("FEQ", None, ITEM["question"], ITEM["entity_name"])
        first = [{"text": "No, Khai Dinh was his father.", "content": True}]
        self.assertIsNone(ehq_ref.correction_cue(first, 0, context))
        later = [{"text": "The last emperor was Khai Dinh.", "content": True}] + first
        self.assertEqual(ehq_ref.correction_cue(later, 1, context).group(0), "No,")

    def test_odd_input_never_raises(self):
        for text in ("?!.,;:" * 20, "abc \ud800 def", "{a}\n" * 50 + "{", "<del>" * 50,
                     "might" + " " * 200 + "x", "&#99999999;", "\\n" * 30):
            reading = ehq_ref.classify(text, ITEM, "ehq_ref-2")
            self.assertIn(reading["label"], ehq_ref.LABELS)
            ehq_ref.parse_confidence(text, "ehq_ref-2", scale="percent", answer="x")


if __name__ == "__main__":
    unittest.main()
