"""Speed figures for ehq_ref, run by hand (not collected by unittest):

    python tests/benchmark.py            # every benchmark
    python tests/benchmark.py log        # only those whose name contains "log"
    EHQ_KIT=/tmp/old/ehq_ref.py python tests/benchmark.py run_ehq3000   # runs of another kit

Each line: operation | size | seconds | rate. Nothing here asserts a time.
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
EHQ3000 = os.environ.get("EHQ3000_PATH") or os.path.join(os.path.dirname(ROOT), "shared", "data",
                                                         "EHQ-3000.json")

import ehq_ref  # noqa: E402

BENCHMARKS = []


def benchmark(function):
    BENCHMARKS.append(function)
    return function


def report(operation, size, seconds, unit=None, count=None):
    rate = f"{count / seconds:,.0f} {unit}/s" if unit and count and seconds > 0 else ""
    print(f"{operation:<48} | {size:<34} | {seconds:8.3f} s | {rate}", flush=True)


@benchmark
def cluster_bootstrap_300_clusters():
    rng = random.Random(0)
    clusters = [[rng.random() < 0.6 for _ in range(rng.randint(1, 5))] for _ in range(300)]

    def pooled_accuracy(drawn):
        items = [x for cluster in drawn for x in cluster]
        return sum(items) / len(items)

    start = time.perf_counter()
    ehq_ref.cluster_bootstrap(clusters, pooled_accuracy, samples=2000, seed=1)
    report("cluster_bootstrap (pooled accuracy)", "2,000 resamples x 300 clusters",
           time.perf_counter() - start, "resamples", 2000)


@benchmark
def log_appends():
    for durable in (False, True):
        count = 100_000
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "events.jsonl")
            record = {"event": "request", "item_id": "HNQ-SPO-001", "attempt": 1, "latency_s": 0.05}
            start = time.perf_counter()
            with ehq_ref.ChainedLog(path, durable=durable) as log:
                for i in range(count):
                    log.append(dict(record, i=i))
            elapsed = time.perf_counter() - start
            label = "log append (fsync each)" if durable else "log append (no fsync)"
            report(label, f"{count:,} records", elapsed, "appends", count)
            start = time.perf_counter()
            assert ehq_ref.verify_log(path)["valid"]
            report("verify_log", f"{count:,} records",
                   time.perf_counter() - start, "records", count)


def synthetic_records(n_models, per_model, seed=1):
    """Labelled records over 4 categories x 5 subcategories, n_models models."""
    rng = random.Random(seed)
    for m in range(n_models):
        for i in range(per_model):
            category = ehq_ref.CATEGORIES[i % 4]
            yield {
                "model": f"model-{m}", "item_id": f"{category}-{i}", "category": category,
                "subcategory": ehq_ref.SUBCATEGORIES[category][(i // 4) % 5],
                "label": ehq_ref.LABELS[rng.randrange(4)], "confidence": rng.randrange(101) / 100
            }


PEAK_RSS_CODE = (
    "def peak_rss_mib():\n"
    "    try:\n"
    "        with open('/proc/self/status') as status:\n"
    "            return next(int(l.split()[1]) for l in status if l.startswith('VmHWM')) / 1024\n"
    "    except OSError:\n"
    "        import resource\n"
    "        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024\n")
exec(PEAK_RSS_CODE
     )  # defines peak_rss_mib(): VmHWM is per address space, ru_maxrss survives exec on Linux


@benchmark
def score_one_million_records():
    records = list(synthetic_records(10, 100_000))
    start = time.perf_counter()
    ehq_ref.ehq_scores(records, samples=0)
    elapsed = time.perf_counter() - start
    report("ehq_scores from memory (no bootstrap)", "1,000,000 records, 10 models", elapsed,
           "records", len(records))


def _score_jsonl_in_subprocess(path):
    code = (PEAK_RSS_CODE + "import sys, time; sys.path.insert(0, sys.argv[1]); import ehq_ref\n"
            "start = time.perf_counter(); ehq_ref.score_file(sys.argv[2], samples=0)\n"
            "print(time.perf_counter() - start, peak_rss_mib())")
    out = subprocess.run([sys.executable, "-c", code, ROOT, path], capture_output=True, text=True,
                         check=True).stdout
    seconds, peak = map(float, out.split())
    return seconds, peak


@benchmark
def score_jsonl_streaming_memory():
    with tempfile.TemporaryDirectory() as folder:
        for count in (100_000, 1_000_000):
            path = os.path.join(folder, f"records-{count}.jsonl")
            with open(path, "w") as handle:
                for row in synthetic_records(10, count // 10):
                    handle.write(json.dumps(row) + "\n")
            seconds, peak = _score_jsonl_in_subprocess(path)
            report(f"score JSONL streamed (peak RSS {peak:.1f} MiB)", f"{count:,} records", seconds,
                   "records", count)


@benchmark
def bootstrap_ehq3000():
    if not os.path.exists(EHQ3000):
        print(f"bootstrap over EHQ-3000: skipped ({EHQ3000} not found)")
        return
    items, _ = ehq_ref.load_items(EHQ3000)
    rng = random.Random(2)
    records = [{
        "item_id": ehq_ref.item_id(it), "category": ehq_ref.item_category(it),
        "subcategory": ehq_ref.item_subcategory(it), "cluster": ehq_ref.item_cluster(it),
        "label": ehq_ref.LABELS[rng.randrange(4)], "confidence": rng.randrange(101) / 100
    } for it in items]
    start = time.perf_counter()
    ehq_ref.ehq_scores(records, samples=2000, seed=0)
    report("EHQ stratified cluster bootstrap (all groups)", "EHQ-3000, 2,000 resamples",
           time.perf_counter() - start, "resamples", 2000)


@benchmark
def labelling_speed():
    """Answers labelled per second by each classifier, over realistic answers to EHQ-3000-sized
    input: the corpus answers plus one answer per EHQ-3000 item (when present)."""
    corpus = os.path.join(ROOT, "tests", "corpus")
    pairs = []
    for name in ("answers_feq_ccq.json", "answers_pcq_hnq.json"):
        document = ehq_ref.load_json_file(os.path.join(corpus, name))
        items = {it["question_id"]: it for it in document["items"]}
        pairs += [(a["answer"], items[a["item"]]) for a in document["answers"]]
    if os.path.exists(EHQ3000):
        items, _ = ehq_ref.load_items(EHQ3000)
        for index, item in enumerate(items):
            golds = ehq_ref.gold_answers(item) or ["it"]
            pairs.append((("I think it was " if index % 3 else "The answer is ") + golds[0] +
                          ". Please double-check a primary source.", item))
    replies = [r["reply"] for r in ehq_ref.load_json_file(
        os.path.join(corpus, "confidence_replies.json"))["replies"]]
    kept = getattr(ehq_ref, "_kept_text_reading", None)  # ehq_ref-2 keeps recent readings
    for name in ehq_ref.CLASSIFIERS:
        if kept is not None and name == ehq_ref.CLASSIFIER_V2:
            def cold():  # every answer new to the reader: the kept readings cleared first
                kept.cache_clear()
                return _timed(lambda: [ehq_ref.classify(a, i, name) for a, i in pairs])
            best = min(cold() for _ in range(3))
            report(f"classify with {name}, answers not seen", f"{len(pairs):,} answers", best,
                   "answers", len(pairs))
        best = min(_timed(lambda: [ehq_ref.classify(a, i, name) for a, i in pairs])
                   for _ in range(3))
        label = f"classify with {name}" + (", seen before" if kept is not None and
                                           name == ehq_ref.CLASSIFIER_V2 else "")
        report(label, f"{len(pairs):,} answers", best, "answers", len(pairs))
        best = min(_timed(lambda: [ehq_ref.parse_confidence(r, name) for r in replies])
                   for _ in range(3))
        report(f"parse_confidence with {name}", f"{len(replies):,} replies", best, "replies",
               len(replies))


def _timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


@benchmark
def startup_help():
    """`--help` start-up against its floor: compiling the file (a script is never cached)."""
    import statistics
    def run(command):
        start = time.perf_counter()
        subprocess.run(command, capture_output=True, check=True)
        return time.perf_counter() - start
    kit = os.path.join(ROOT, "ehq_ref.py")
    helps, floors = [], []
    for _ in range(15):
        helps.append(run([sys.executable, kit, "--help"]))
        floors.append(run([sys.executable, "-c", f"compile(open({kit!r}).read(), 'k', 'exec')"]))
    h, f = statistics.median(helps), statistics.median(floors)
    report(f"--help start-up ({h / f:.2f}x its floor of {f * 1000:.0f} ms)", "median of 15", h)


SERVER_CODE = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from fake_provider import FakeProvider
server = FakeProvider("chat", latency=float(sys.argv[2]), tls=sys.argv[3:] == ["tls"])
print(server.base_url, flush=True)
sys.stdin.read()
print(json.dumps(server.stats()), flush=True)
"""


class LocalServer:
    """The fake provider in its own process (so it does not share the client's GIL).

    ``stats()`` (after the run) gives the server's own figures: TCP connections
    accepted, requests, first request received and last reply sent (its clock).
    """

    def __init__(self, latency, tls=False):
        self.process = subprocess.Popen(
            [sys.executable, "-c", SERVER_CODE, os.path.join(ROOT, "tests"), str(latency)] +
            (["tls"] if tls else []), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.process.stdout.readline().strip()

    def stats(self):
        self.process.stdin.close()
        figures = json.loads(self.process.stdout.readline())
        self.process.wait(timeout=30)
        return figures

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)


@benchmark
def provider_calls_50ms():
    latency = 0.05
    with LocalServer(latency) as server:
        route = ehq_ref.Route(name="bench", provider="openai_compatible",
                              provider_model="local-model", base_url=server.base_url,
                              requires_api_key=False)
        secrets = ehq_ref.Secrets(environ={})
        for concurrency, calls in ((1, 40), (8, 320), (32, 1280)):
            request = lambda i: ehq_ref.Request("answer", "sys", f"q{i}", 16, item_id=str(i)
                                                )  # noqa: E731
            start = time.perf_counter()
            results = list(
                ehq_ref.map_concurrently(
                    lambda i: ehq_ref.call_model(route, request(i), secrets=secrets), range(calls),
                    concurrency))
            elapsed = time.perf_counter() - start
            assert all(r.ok for r in results)
            ideal = calls * latency / concurrency
            report(f"call_model, 50 ms server (x{elapsed / ideal:.2f} of ideal)",
                   f"{calls} calls, concurrency {concurrency}", elapsed, "calls", calls)


def _run_in_subprocess(args, env=None):
    """Run `python ehq_ref.py ARGS` timing it and reading its peak memory (VmHWM) from inside.

    The kit is ROOT's ehq_ref.py, or the one $EHQ_KIT names (to compare two versions).
    """
    code = (PEAK_RSS_CODE +
            "import sys, time, contextlib, io; sys.path.insert(0, sys.argv[1]); import ehq_ref\n"
            "start = time.perf_counter()\n"
            "with contextlib.redirect_stdout(io.StringIO()): code = ehq_ref.main(sys.argv[2:])\n"
            "print(code, time.perf_counter() - start, peak_rss_mib())")
    kit = os.path.dirname(os.path.abspath(os.environ["EHQ_KIT"])) if os.environ.get(
        "EHQ_KIT") else ROOT
    out = subprocess.run([sys.executable, "-c", code, kit, *args], capture_output=True, text=True,
                         env=env)
    if out.returncode:
        raise SystemExit(out.stderr)
    code, seconds, peak = out.stdout.split()
    return int(code), float(seconds), float(peak)


@benchmark
def offline_run_ehq3000():
    if not os.path.exists(EHQ3000):
        print(f"offline EHQ-3000 run: skipped ({EHQ3000} not found)")
        return
    with tempfile.TemporaryDirectory() as folder:
        code, seconds, peak = _run_in_subprocess([
            "run", "--items", EHQ3000, "--output", folder, "--run-id", "b", "--quiet", "--env-file",
            os.path.join(folder, "none")
        ])
        report(f"run offline (exit {code}, peak RSS {peak:.1f} MiB)",
               "EHQ-3000, 2,000 bootstrap resamples", seconds, "items", 3000)


@benchmark
def provider_run_ehq3000_50ms():
    """EHQ-3000 (answer + confidence per item) against the 50 ms server, plain HTTP and HTTPS.

    The call phase is measured by the server: first request received to last reply
    sent; the latency-bound ideal is calls x latency / concurrency. The whole run's
    wall time includes start-up, scoring, the bootstrap and the reports.
    """
    if not os.path.exists(EHQ3000):
        print(f"EHQ-3000 run against a server: skipped ({EHQ3000} not found)")
        return
    latency, concurrency = 0.05, 32
    for tls in (False, True):
        with LocalServer(latency, tls=tls) as server, tempfile.TemporaryDirectory() as folder:
            registry = os.path.join(folder, "models.json")
            with open(registry, "w") as handle:
                json.dump([{
                    "name": "local", "provider": "openai_compatible",
                    "provider_model": "local-model", "base_url": server.base_url,
                    "requires_api_key": False
                }], handle)
            env = dict(os.environ, SSL_CERT_FILE=os.path.join(ROOT, "tests", "tls", "ca.pem"))
            code, seconds, peak = _run_in_subprocess([
                "run", "--items", EHQ3000, "--registry", registry, "--model", "local", "--output",
                folder, "--run-id", "b", "--quiet", "--no-cache", "--concurrency",
                str(concurrency), "--env-file",
                os.path.join(folder, "none")
            ], env=env)
            figures = server.stats()
            calls = figures["requests"]
            phase = figures["last_reply"] - figures["first_request"]
            ideal = calls * latency / concurrency
            name = "HTTPS" if tls else "HTTP"
            print(f"run, 50 ms {name} server, concurrency {concurrency} (exit {code}) | "
                  f"EHQ-3000, {calls:,} requests, {figures['connections']:,} TCP connections | "
                  f"call phase {phase:.3f} s = x{phase / ideal:.3f} of ideal {ideal:.3f} s | "
                  f"whole run {seconds:.3f} s", flush=True)


@benchmark
def report_and_exports_ehq3000_three_models():
    """report.html, the Inspect and lm-eval exports and the Inspect import of EHQ-3000 x 3."""
    if not os.path.exists(EHQ3000):
        print(f"report and exports of EHQ-3000: skipped ({EHQ3000} not found)")
        return
    with tempfile.TemporaryDirectory() as folder:
        registry = os.path.join(folder, "models.json")
        with open(registry, "w") as handle:
            json.dump({"models": [{"name": name, "provider": "offline", "pcq_eligible": True,
                                   "pcq_cutoff": "2024-01-01",
                                   "provider_model": "offline-simulated-1"}
                                  for name in ("a", "b", "c")]}, handle)
        run = os.path.join(folder, "r")
        _run_in_subprocess(["run", "--items", EHQ3000, "--registry", registry, "--model",
                            "a,b,c", "--output", folder, "--run-id", "r", "--quiet",
                            "--reproducible", "--no-cache", "--env-file",
                            os.path.join(folder, "none")])
        page = os.path.join(folder, "page.html")
        code, seconds, peak = _run_in_subprocess(["report", run, "--output", page])
        report(f"report (exit {code}, peak RSS {peak:.1f} MiB)",
               f"9,000 samples, {os.path.getsize(page) / 1e6:.1f} MB", seconds, "samples", 9000)
        logs = os.path.join(folder, "logs")
        code, seconds, peak = _run_in_subprocess(["export", run, "--format", "inspect",
                                                  "--output", logs])
        size = sum(os.path.getsize(os.path.join(logs, n)) for n in os.listdir(logs))
        report(f"export inspect (exit {code}, peak RSS {peak:.1f} MiB)",
               f"3 logs, {size / 1e6:.1f} MB", seconds, "samples", 9000)
        code, seconds, peak = _run_in_subprocess(["export", run, "--format", "lm-eval",
                                                  "--output", os.path.join(folder, "lm")])
        report(f"export lm-eval (exit {code}, peak RSS {peak:.1f} MiB)", "3 models",
               seconds, "samples", 9000)
        log = os.path.join(logs, sorted(os.listdir(logs))[0])
        code, seconds, peak = _run_in_subprocess(["score", log, "--items", EHQ3000])
        report(f"score an Inspect log (exit {code}, peak RSS {peak:.1f} MiB)",
               "3,000 samples, 2,000 bootstrap resamples", seconds, "samples", 3000)


def main(argv):
    wanted = argv[1:]
    print(
        f"ehq_ref {ehq_ref.__version__} on Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    for function in BENCHMARKS:
        if not wanted or any(w in function.__name__ for w in wanted):
            function()


if __name__ == "__main__":
    main(sys.argv)
