"""The HTML report: well-formed, self-contained, every record a sample, hostile texts as text."""

import base64
import collections
import hashlib
import html.parser
import json
import os
import re
import unittest

from fake_provider import FakeProvider, Reply, chat_success
from support import TempDirTestCase, ehq_ref, run_cli

VOID = {"meta", "input", "br", "img", "hr", "link", "source", "wbr", "col", "area", "base",
        "embed", "param", "track"}
HOSTILE = {
    "HNQ-GEO-002": '<script>alert("pwned")</script> I think it is Paris.',
    "HNQ-SCI-001": "</div></details></section><h1>fake heading</h1> The answer is 42.",
    "FEQ-ORG-001": '<a href="javascript:alert(1)">click me</a> I don\'t know.',
    "FEQ-PER-001": "\" onmouseover=\"alert(1)\" x=' The answer is Marta Kovalenko.",
    "CCQ-FIN-001": "]]></svg><img src=x onerror=alert(1)><style>@import url(http://x.invalid/a.css)"
                   "</style> The document does not say.",
}
HOSTILE_REPLY = '<script src="http://x.invalid/s.js"></script>90'
TRUNCATED = "Which river flows through the centre of Ljubljana?"
TRUNCATED_TEXT = "<b>The Ljub</b><script>"


class PageParser(html.parser.HTMLParser):
    """Checks nesting (every end tag closes the element open), collects samples and texts."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems, self.elements = [], [], []
        self.samples, self.group, self.texts, self.ids = [], None, [], collections.Counter()
        self.scripts, self.styles, self.labels_for, self.inputs = [], [], set(), []
        self._script = None

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        self.elements.append((tag, attributes))
        if "id" in attributes:
            self.ids[attributes["id"]] += 1
        if tag == "div" and "data-model" in attributes:
            self.group = attributes["data-model"]
        if tag == "details" and "s" in (attributes.get("class") or "").split():
            self.samples.append((self.group, attributes["class"].split(), attributes["id"]))
        if tag == "label":
            self.labels_for.add(attributes.get("for"))
        if tag == "input":
            self.inputs.append(attributes)
        if tag in ("script", "style"):
            self._script = []
            (self.scripts if tag == "script" else self.styles).append((attributes, self._script))
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._script = None
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'} "
                                 f"at {self.getpos()}")
            return
        self.stack.pop()

    def handle_data(self, data):
        self.texts.append(data)
        if self._script is not None:
            self._script.append(data)


def parse_page(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    parser = PageParser()
    parser.feed(text)
    parser.close()
    return text, parser


def hostile_model(body):
    """Answers: hostile texts for some items, a plain answer otherwise; a bad confidence reply."""
    prompt = body["messages"][-1]["content"]
    if "confidence" in body["messages"][0]["content"]:
        return HOSTILE_REPLY if "Paris" in prompt else "85"
    for item in ehq_ref.EXAMPLE_ITEMS:
        if item["question"] in prompt and item["question_id"] in HOSTILE:
            return HOSTILE[item["question_id"]]
    return "I think it might be Lisbon, but I am not sure." if "FEQ" in prompt else \
        "The answer is Mikhail Bulgakov."


class HtmlCase(TempDirTestCase):
    def options(self, **changes):
        fields = dict(output=self.path("runs"), run_id="r", progress="quiet", use_cache=False,
                      bootstrap=50, env_file=None, reproducible=True)
        fields.update(changes)
        return ehq_ref.RunOptions(**fields)

    def hostile_run(self):
        server = FakeProvider("chat", responder=hostile_model)
        self.addCleanup(server.close)

        def rule(body, index):
            if TRUNCATED in body["messages"][-1]["content"]:
                return Reply(200, chat_success(TRUNCATED_TEXT, finish="length"))
            return None
        server.rule = rule
        registry = self.write("models.json", json.dumps({"models": [dict(
            name="local", provider="openai_compatible", provider_model="local-model",
            base_url=server.base_url, requires_api_key=False, read_timeout=5.0)]}))
        return ehq_ref.run_evaluation(self.options(models=("local", "offline"),
                                                   registry=registry,
                                                   compare=(("local", "offline"),)))


class HostileRunTest(HtmlCase):
    @classmethod
    def setUpClass(cls):
        cls.case = HtmlCase("setUp")
        cls.case.setUp()
        cls.result = cls.case.hostile_run()
        cls.folder = cls.result["run_dir"]
        cls.text, cls.page = parse_page(os.path.join(cls.folder, "report.html"))
        with open(os.path.join(cls.folder, "records.jsonl"), encoding="utf-8") as handle:
            cls.records = [json.loads(line) for line in handle]

    @classmethod
    def tearDownClass(cls):
        cls.case.doCleanups()

    def test_the_page_is_well_formed_and_catalogued(self):
        self.assertEqual(self.page.problems, [])
        self.assertEqual(self.page.stack, [])
        self.assertTrue(self.text.startswith("<!DOCTYPE html>\n<html lang=\"en\">"))
        duplicates = [name for name, count in self.page.ids.items() if count > 1]
        self.assertEqual(duplicates, [])
        catalog = ehq_ref.load_json_file(os.path.join(self.folder, ehq_ref.CATALOG))
        self.assertIn("report.html", catalog["artifacts"])
        self.assertTrue(ehq_ref.verify_run(self.folder)["valid"])

    def test_nothing_is_fetched_and_only_the_own_script_may_run(self):
        lowered = self.text.lower()
        self.assertNotIn("<script src", lowered)
        self.assertNotIn("<link", lowered)
        style = "".join("".join(parts) for _, parts in self.page.styles).lower()
        self.assertNotIn("@import", style)
        self.assertNotIn("url(", style)
        self.assertEqual(len(self.page.scripts), 1)
        attributes, parts = self.page.scripts[0]
        self.assertEqual(attributes, {})
        self.assertEqual("".join(parts), ehq_ref.HTML_SCRIPT)
        policy = [a["content"] for tag, a in self.page.elements
                  if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
        digest = base64.b64encode(hashlib.sha256(ehq_ref.HTML_SCRIPT.encode()).digest()).decode()
        self.assertEqual(policy, [f"default-src 'none'; style-src 'unsafe-inline'; script-src "
                                  f"'sha256-{digest}'; base-uri 'none'; form-action 'none'"])
        hrefs = {a["href"] for tag, a in self.page.elements if tag == "a"}
        self.assertTrue(hrefs and all(h.startswith("#") for h in hrefs), hrefs)
        self.assertFalse([a for _, a in self.page.elements
                          if "src" in a or any(name.startswith("on") for name in a)])
        counts = collections.Counter(tag for tag, _ in self.page.elements)
        self.assertEqual((counts["h1"], counts["img"], counts["style"]), (1, 0, 1))
        self.assertLessEqual(set(counts), {
            "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "h4", "p", "nav",
            "a", "table", "thead", "tbody", "tr", "th", "td", "ul", "li", "span", "b", "i",
            "small", "figure", "figcaption", "svg", "rect", "text", "line", "polyline", "circle",
            "g", "section", "input", "div", "fieldset", "legend", "label", "details", "summary",
            "pre", "script"})

    def test_hostile_texts_are_shown_as_text(self):
        text = "".join(self.page.texts)
        for answer in list(HOSTILE.values()) + [HOSTILE_REPLY, TRUNCATED_TEXT]:
            self.assertIn(answer, text)
        hostile = next(r for r in self.records if r["question_id"] == "HNQ-GEO-002"
                       and r["model"] == "local")
        self.assertEqual(hostile["confidence_text"], HOSTILE_REPLY)
        self.assertIn("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;", self.text)

    def test_every_record_is_one_sample_counted_as_in_summary(self):
        self.assertEqual(len(self.page.samples), len(self.records))
        self.assertEqual(sorted(s[2] for s in self.page.samples),
                         sorted(ehq_ref.sample_anchor(r["model"], r["question_id"])
                                for r in self.records))
        codes = {code: name for name, (code, _) in ehq_ref.SAMPLE_LABELS.items()}
        found = collections.Counter()
        for model, classes, _ in self.page.samples:
            label = [codes[c[1:]] for c in classes if c.startswith("L") and c[1:] in codes]
            self.assertEqual(len(label), 1, classes)
            found[(model, label[0])] += 1
        summary = self.result["summary"]
        for model, groups in summary["scores"].items():
            overall = groups["overall"]
            expected = dict(overall["response_distribution"],
                            TECHNICAL_FAILURE=overall["technical_failures"],
                            NOT_REQUESTED=overall["n_out_of_scope_k1"])
            self.assertEqual({label: found[(model, label)] for label in expected}, expected)
        local = summary["scores"]["local"]["overall"]
        self.assertEqual((local["technical_failures"], local["n_out_of_scope_k1"]), (1, 10))

    def test_filters_work_by_css_alone(self):
        ids = {a["id"] for a in self.page.inputs}
        self.assertEqual(ids, {i for i in self.page.labels_for if i})
        for name in ids:
            self.assertIn(f"#{name}:checked~", self.text)
        by_class = collections.Counter(c for _, classes, _ in self.page.samples for c in classes)
        self.assertEqual(by_class["ff"], 1)
        self.assertEqual(by_class["fd"], sum(map(ehq_ref.classifiers_disagree, self.records)))
        self.assertEqual(by_class["fw"], sum(map(ehq_ref.confident_and_wrong, self.records)))
        self.assertGreater(by_class["fw"], 0)
        self.assertIn(".s:not(.fw){display:none}", self.text)
        self.assertIn("#fm0:checked~.list .gm:not(.m0){display:none}", self.text)
        for css, tag, attribute in (("gm", "div", "data-model"), ("gc", "div", None),
                                    ("s", "details", "id")):  # what the filter rules hide
            marked = [(t, a) for t, a in self.page.elements
                      if css in (a.get("class") or "").split()]
            self.assertTrue(marked)
            self.assertEqual({t for t, _ in marked}, {tag}, css)
            self.assertTrue(attribute is None or all(attribute in a for _, a in marked))

    def test_headline_flags_and_published_protocol(self):
        self.assertIn("published EHQ (ehq-1.1.4)", self.text)
        self.assertIn('<span class="flag" title="', self.text)
        self.assertIn("small n", self.text)
        published = self.result["summary"]["classifier_sensitivity"]["local"]["EHQ"]["ehq-1.1.4"]
        block = self.result["summary"]["classifier_sensitivity"]["local"]
        self.assertNotEqual(block["headline"], block["published"])  # ehq_ref-2 beside ehq-1.1.4
        self.assertIn(f"<td>{ehq_ref._fmt(published['EHQ'])}</td>", self.text)
        self.assertNotIn(" (the headline)", self.text)
        for figure in ("fig-risk-coverage", "fig-reliability", "fig-ehq-components"):
            self.assertIn(f'<figure id="{figure}">\n<svg xmlns=', self.text)
        self.assertNotIn('id="fig-targets"', self.text)
        self.assertIn("technical failure", self.text)
        self.assertIn("pcq_not_eligible", self.text)
        d = self.result["summary"]["comparisons"][0]["difference"]["EHQ"]
        self.assertIn(f"<td>local - offline</td><td>EHQ</td><td>"
                      f"{ehq_ref._cell(d['estimate'], d['low'], d['high'])}", self.text)

    def test_anchors_are_unique_and_name_model_and_item(self):
        self.assertEqual(ehq_ref.sample_anchor("local", "HNQ-GEO-001"), "s-local--HNQ-GEO-001")
        odd = {ehq_ref.sample_anchor(m, i) for m, i in (("a--b", "c"), ("a", "b--c"),
                                                         ("a b", "c"), ("a_b", "c"))}
        self.assertEqual(len(odd), 4)
        self.assertTrue(all(re.fullmatch(r"s-[A-Za-z0-9._-]+", a) for a in odd))

    def test_report_rebuilds_the_same_bytes(self):
        output = self.case.path("again.html")
        result = run_cli("report", self.folder, "--output", output)
        self.assertEqual((result.code, result.out), (0, output + "\n"))
        with open(output, "rb") as again, open(os.path.join(self.folder, "report.html"),
                                               "rb") as first:
            self.assertEqual(again.read(), first.read())
        in_place = run_cli("report", self.folder)
        self.assertEqual((in_place.code, in_place.err), (0, ""))


class ReproducibleReportTest(HtmlCase):
    def test_two_reproducible_runs_write_identical_pages_with_targets_and_gate(self):
        pages = []
        for output in ("a", "b"):
            result = ehq_ref.run_evaluation(self.options(output=self.path(output),
                                                         targets=(0.5, 0.9)))
            with open(os.path.join(result["run_dir"], "report.html"), "rb") as handle:
                pages.append(handle.read())
        self.assertEqual(pages[0], pages[1])
        text = pages[0].decode()
        for needle in ("<script src", "<link", "@import", "url(http"):
            self.assertNotIn(needle, text.lower())
        self.assertIn('<figure id="fig-targets">', text)
        self.assertIn("target 0.5: ", text)
        self.assertNotIn('id="gate"', text)
        baseline = os.path.join(self.path("a"), "r", "summary.json")
        gated = ehq_ref.run_evaluation(self.options(output=self.path("c"), baseline=baseline))
        with open(os.path.join(gated["run_dir"], "report.html"), encoding="utf-8") as handle:
            text = handle.read()
        self.assertIn('<h2 id="gate">Gate: <span class="ok">pass</span></h2>', text)

    def test_merged_runs_get_the_page_and_report_rebuilds_it(self):
        shards = [ehq_ref.run_evaluation(self.options(run_id=f"s{k}", shard=(k, 2)))["run_dir"]
                  for k in (1, 2)]
        merged = self.path("merged")
        ehq_ref.merge_runs(shards, merged)
        text, page = parse_page(os.path.join(merged, "report.html"))
        self.assertEqual(page.problems, [])
        self.assertEqual(len(page.samples), 40)
        self.assertIn("merged from", text)
        self.assertIn("SIMULATED", text)
        out = self.path("rebuilt.html")
        self.assertEqual(run_cli("report", merged, "--output", out).code, 0)
        with open(out, encoding="utf-8") as handle:
            self.assertEqual(handle.read(), text)

    def test_records_without_text_show_the_question_hash(self):
        result = ehq_ref.run_evaluation(self.options(no_text=True))
        text, page = parse_page(os.path.join(result["run_dir"], "report.html"))
        self.assertEqual(page.problems, [])
        self.assertIn("withheld (sha256 ", text)
        self.assertNotIn(ehq_ref.EXAMPLE_ITEMS[0]["question"], text)


class ReportInputTest(HtmlCase):
    def setUp(self):
        super().setUp()
        self.folder = ehq_ref.run_evaluation(self.options(bootstrap=0))["run_dir"]

    def one_line(self, result, *names):
        self.assertEqual(result.code, 2, result)
        self.assertEqual(result.err.count("\n"), 1, result.err)
        for name in names:
            self.assertIn(name, result.err)

    def test_bad_run_directories_are_one_line_errors(self):
        self.one_line(run_cli("report", self.path("nope")), self.path("nope"),
                      "not a run directory")
        self.one_line(run_cli("report", self.tmp), "no manifest.json")
        summary = os.path.join(self.folder, "summary.json")
        with open(summary, "w") as handle:
            handle.write('{"models": [], "models": []}')
        self.one_line(run_cli("report", self.folder), summary, "duplicate key")
        with open(summary, "w") as handle:
            handle.write('{"models": []}')
        self.one_line(run_cli("report", self.folder), summary, "missing field 'scores'")

    def test_a_bad_record_line_names_the_file_and_line(self):
        records = os.path.join(self.folder, "records.jsonl")
        with open(records, "a") as handle:
            handle.write('{"kind": "answer", "question_id": 7}\n')
        self.one_line(run_cli("report", self.folder), records, "line 41")

    def test_a_summary_this_kit_cannot_render_names_the_run(self):
        path = os.path.join(self.folder, "summary.json")
        summary = ehq_ref.load_json_file(path)
        summary["models"][0].pop("rank")
        ehq_ref.write_json(path, summary)
        self.one_line(run_cli("report", self.folder), self.folder, "cannot render this run")

    def test_rebuilding_with_other_bytes_notes_the_catalog(self):
        path = os.path.join(self.folder, "summary.json")
        summary = ehq_ref.load_json_file(path)
        summary["simulated"] = False
        ehq_ref.write_json(path, summary)
        result = run_cli("report", self.folder)
        self.assertEqual(result.code, 0)
        self.assertIn("differs from the copy in artifact_catalog.json", result.err)


if __name__ == "__main__":
    unittest.main()
