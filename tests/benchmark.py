"""Speed figures for ehq_ref, run by hand (not collected by unittest):

    python tests/benchmark.py            # every benchmark
    python tests/benchmark.py log        # only those whose name contains "log"

Each line: operation | size | seconds | rate. Nothing here asserts a time.
"""

import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

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
            report("verify_log", f"{count:,} records", time.perf_counter() - start, "records", count)


def main(argv):
    wanted = argv[1:]
    print(f"ehq_ref {ehq_ref.__version__} on Python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    for function in BENCHMARKS:
        if not wanted or any(w in function.__name__ for w in wanted):
            function()


if __name__ == "__main__":
    main(sys.argv)
