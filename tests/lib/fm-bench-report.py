#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# fm-bench-report.py: writes an fm-bench JSON report (schema v1) in the published format
# (/work/shared/reference/fm-bench.md section 4.6) for tests of `import`: fm-bench 0.8.0 or
# 0.7.x conventions (TPOT denominator, generation window, warm-up default, which fields exist),
# any number of models, operating points, prompts and runs, failed runs, metrics without token
# counting, without results, with SLOs. The per-run values come from a seeded generator; the
# summary rows are computed from them as fm-bench computes them (summarizeNumbers: linear
# percentiles, sample sd, its t table), so a test can assert the numbers it wrote. Python 3
# standard library only. Owned by the import tests (tests/cli/import_fm.sh).
import argparse
import hashlib
import json
import math
import random
import sys

T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
       2.16, 2.145, 2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06,
       2.056, 2.052, 2.048, 2.045, 2.042]


def t95(df):
    df = max(1, df)
    return T95[df - 1] if df <= 30 else 2.0 if df <= 60 else 1.96


def pct(v, p):
    if not v:
        return None
    r = p / 100 * (len(v) - 1)
    lo, hi = math.floor(r), math.ceil(r)
    if lo == hi:
        return v[lo]
    w = r - lo
    return v[lo] * (1 - w) + v[hi] * w


def summarize(values):
    v = sorted(x for x in values if x is not None and math.isfinite(x))
    n = len(v)
    s = {"count": n, "min": None, "max": None, "avg": None, "sum": sum(v), "stddev": None,
         "cv": None, "ci95Low": None, "ci95High": None, "p50": None, "p90": None, "p95": None,
         "p99": None}
    if n == 0:
        return s
    avg = sum(v) / n
    s.update(min=v[0], max=v[-1], avg=avg, p50=pct(v, 50), p90=pct(v, 90), p95=pct(v, 95),
             p99=pct(v, 99))
    if n >= 2:
        sd = math.sqrt(sum((x - avg) ** 2 for x in v) / (n - 1))
        h = t95(n - 1) * sd / math.sqrt(n)
        s.update(stddev=sd, cv=sd / abs(avg) if avg else None, ci95Low=avg - h, ci95High=avg + h)
    return s


def run_result(rng, a, model, conc, pid, run, ptok, fail, v08, offset):
    dur = round(rng.uniform(400, 900), 3)
    r = {"model": model, "concurrency": conc, "promptId": pid, "run": run, "attempts": 1,
         "ok": not fail, "durationMs": dur}
    if fail:
        r.update(firstTokenMs=None, generationMs=None, tpotMs=None, promptTokens=ptok,
                 outputTokens=None, chars=0, words=0, tokensPerSecond=None,
                 decodeTokensPerSecond=None, prefillTokensPerSecond=None, charsPerSecond=0,
                 startOffsetMs=offset, endOffsetMs=offset + dur, streamed=True, stdoutChunks=0,
                 secondChunkMs=None, chunkGapsMs=[], chunkGapAvgMs=None, chunkGapMaxMs=None,
                 outputHash=None, good=False, error="fm exited with status 1")
        if v08:
            r.update(firstChunkTokens=None, decodeTokens=None)
        return r
    ttft = round(rng.uniform(80, 250), 3)
    ntok = None if a.no_tokens else rng.randint(20, 60)
    first = None if a.no_tokens else rng.randint(3, 18)
    ngaps = rng.randint(2, 6)
    gaps = [round(rng.uniform(40, 120), 3) for _ in range(ngaps)]
    if v08:
        gen = sum(gaps)
        dec = ntok - min(first, ntok) if ntok is not None else None
        if dec is not None and dec < 2:
            dec = None
        tpot = gen / dec if dec else None
        dtps = dec / (gen / 1000) if dec else None
    else:
        gen = dur - ttft
        dec = ntok - 1 if ntok is not None and ntok > 2 else None
        tpot = gen / dec if dec else None
        dtps = dec / (gen / 1000) if dec else None
    chars = 5 * (ntok or 10)
    out = "word " * (ntok or 10)
    good = None
    if a.slo_ttft is not None:
        good = ttft <= a.slo_ttft
    r.update(firstTokenMs=ttft, generationMs=gen, tpotMs=tpot, promptTokens=ptok,
             outputTokens=ntok, chars=chars, words=ntok or 10,
             tokensPerSecond=ntok / (dur / 1000) if ntok is not None else None,
             decodeTokensPerSecond=dtps,
             prefillTokensPerSecond=ptok / (ttft / 1000) if ptok is not None else None,
             charsPerSecond=chars / (dur / 1000), startOffsetMs=offset, endOffsetMs=offset + dur,
             streamed=True, stdoutChunks=ngaps + 1 + (0 if v08 else 0), secondChunkMs=gaps[0],
             chunkGapsMs=gaps, chunkGapAvgMs=sum(gaps) / len(gaps), chunkGapMaxMs=max(gaps),
             outputHash=hashlib.sha256(out.strip().encode()).hexdigest()[:16], good=good,
             error="")
    if v08:
        r["firstChunkTokens"] = first
        r["decodeTokens"] = dec
    return r


def summary_row(a, model, conc, rs, v08):
    ok = [r for r in rs if r["ok"]]
    col = lambda k: [r[k] for r in ok if r.get(k) is not None]
    window = (max(r["endOffsetMs"] for r in ok) - min(r["startOffsetMs"] for r in ok)) if ok else None
    out_sum = sum(col("outputTokens"))
    row = {"model": model, "concurrency": conc, "description": "", "identity": "",
           "available": True, "unsupported": False, "skippedReason": "",
           "attempted": len(rs), "attempts": sum(r["attempts"] for r in rs), "retried": 0,
           "successes": len(ok), "failures": len(rs) - len(ok),
           "successRate": len(ok) / len(rs) if rs else None}
    measured = [r for r in ok if r["good"] is not None]
    row["goodputRate"] = (sum(1 for r in measured if r["good"]) / len(measured)) if measured else None
    if v08:
        per = {}
        for r in ok:
            per.setdefault(r["promptId"], []).append(r["durationMs"])
        cvs = [summarize(v)["cv"] for v in per.values() if len(v) >= 2]
        cvs = [x for x in cvs if x is not None]
        row["stabilityCv"] = sum(cvs) / len(cvs) if cvs else None
    row["rps"] = len(ok) / (window / 1000) if ok and window > 0 else None
    row["goodputRps"] = (sum(1 for r in measured if r["good"]) / (window / 1000)) if measured and window else None
    row["outputTokenThroughput"] = out_sum / (window / 1000) if out_sum > 0 and window else None
    row["totalTokenThroughput"] = ((sum(col("promptTokens")) + out_sum) / (window / 1000)) if out_sum > 0 and window else None
    row["repeatability"] = None
    row["latency"] = summarize(col("durationMs"))
    row["ttft"] = summarize(col("firstTokenMs"))
    row["generation"] = summarize(col("generationMs"))
    row["tpot"] = summarize(col("tpotMs"))
    row["promptTokens"] = summarize(col("promptTokens"))
    row["outputTokens"] = summarize(col("outputTokens"))
    if v08:
        row["firstChunkTokens"] = summarize(col("firstChunkTokens"))
    row["charsPerSecond"] = summarize(col("charsPerSecond"))
    row["tokensPerSecond"] = summarize(col("tokensPerSecond"))
    row["decodeTokensPerSecond"] = summarize(col("decodeTokensPerSecond"))
    if v08:
        dr = [r for r in ok if r.get("decodeTokens") is not None and r["generationMs"] > 0]
        gs = sum(r["generationMs"] for r in dr)
        row["decodeThroughput"] = sum(r["decodeTokens"] for r in dr) / (gs / 1000) if gs else None
    row["prefillTokensPerSecond"] = summarize(col("prefillTokensPerSecond"))
    row["secondChunk"] = summarize(col("secondChunkMs"))
    row["chunkGap"] = summarize([g for r in ok for g in r["chunkGapsMs"]])
    return row


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--version", default="0.8.0")
    ap.add_argument("--models", default="system")
    ap.add_argument("--concurrency", default="1")
    ap.add_argument("--prompts", type=int, default=3)
    ap.add_argument("--prompt-set", help="a client bundle whose prompts (ids, texts) to use")
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--fail", type=int, default=0, help="failed runs per row (the first ones)")
    ap.add_argument("--omit-warmup", action="store_true", help="no options.warmup")
    ap.add_argument("--warmup", type=int)
    ap.add_argument("--no-tokens", action="store_true", help="a build without token counting")
    ap.add_argument("--no-results", action="store_true", help="results: [] (summary only)")
    ap.add_argument("--slo-ttft", type=float)
    ap.add_argument("--fm-bin", default="fm")
    ap.add_argument("--unavailable-model", help="a model listed but unavailable (skipped rows)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    v08 = tuple(int(x) for x in a.version.split(".")[:2]) >= (0, 8)
    rng = random.Random(a.seed)
    models = a.models.split(",")
    concs = [int(x) for x in a.concurrency.split(",")]
    if a.prompt_set:
        ps = json.load(open(a.prompt_set))["client"]["prompts"]
        prompts = [{"id": p["id"], "prompt": p["text"], "promptTokens": 10 + i}
                   for i, p in enumerate(ps)]
    else:
        prompts = [{"id": f"{a.profile}-{i + 1}", "prompt": f"Prompt number {i + 1}: say hello.",
                    "promptTokens": None if a.no_tokens else 10 + i} for i in range(a.prompts)]
    results, summary = [], []
    for conc in concs:
        for m in models:
            rs, offset = [], 0.0
            k = 0
            for p in prompts:
                for run in range(1, a.runs + 1):
                    r = run_result(rng, a, m, conc, p["id"], run, p["promptTokens"], k < a.fail,
                                   v08, offset)
                    offset = r["endOffsetMs"] if conc == 1 else offset + 10
                    rs.append(r)
                    k += 1
            results += rs
            summary.append(summary_row(a, m, conc, rs, v08))
        if a.unavailable_model:
            summary.append({"model": a.unavailable_model, "concurrency": conc, "available": False,
                            "unsupported": False, "skippedReason": "model not available",
                            "attempted": 0, "attempts": 0, "retried": 0, "successes": 0,
                            "failures": 0, "successRate": None})
    results.sort(key=lambda r: (r["model"], r["concurrency"], r["promptId"], r["run"]))
    tok_reason = "build exposes no token-counting command" if a.no_tokens else ""
    metrics = {k: {"label": k, "kind": kind, "source": "", "available": not (a.no_tokens and tok),
                   "unavailableReason": tok_reason if (a.no_tokens and tok) else ""}
               for k, kind, tok in [("ttft", "proxy", False), ("e2eLatency", "measured", False),
                                    ("generationMs", "derived", False), ("tpot", "derived", True),
                                    ("firstChunkTokens", "measured", True),
                                    ("promptTokens", "measured", True),
                                    ("outputTokens", "measured", True),
                                    ("tokensPerSecond", "derived", True),
                                    ("decodeTokensPerSecond", "derived", True),
                                    ("prefillTokensPerSecond", "proxy", True),
                                    ("outputTokenThroughput", "derived", True),
                                    ("rps", "measured", False), ("chunkGaps", "proxy", False),
                                    ("goodput", "derived", False)]}
    options = {"models": models, "runs": a.runs, "concurrency": concs[0],
               "sweepConcurrency": concs if len(concs) > 1 else [], "timeoutMs": 60000,
               "requestRate": None, "rampUpMs": None, "profile": a.profile, "greedy": True,
               "stream": True, "slo": {"ttftMs": a.slo_ttft, "e2eMs": None, "tpotMs": None},
               "instructions": "", "retry": 0, "tags": ["gen"], "note": "generated"}
    if not a.omit_warmup:
        options["warmup"] = a.warmup if a.warmup is not None else (1 if v08 else 0)
    rep = {"tool": "fm-bench", "version": a.version, "startedAt": "2026-11-30T10:00:00.000Z",
           "finishedAt": "2026-11-30T10:01:00.000Z", "options": options,
           "environment": {"platform": "darwin", "arch": "arm64", "node": "v24.16.0",
                           "host": "mac", "fmBin": a.fm_bin,
                           "macOS": "ProductName:\tmacOS\nProductVersion:\t27.2\nBuildVersion:\t27C5",
                           "hwModel": "Mac17,9", "cpuBrand": "Apple M5 Pro", "memoryGb": 48,
                           "fmHelpDigest": "0123456789abcdef",
                           "thermal": {"schedulerLimit": None, "healthyIdle": True},
                           "power": {"pct": 90, "onAC": True}},
           "capabilities": {"bin": a.fm_bin, "digest": "0123456789abcdef",
                            "commands": ["respond"], "models": [],
                            "features": {"tokenCounting": not a.no_tokens, "streaming": True}},
           "metrics": metrics}
    if v08:
        rep["tokenCounter"] = {"command": None if a.no_tokens else "count-tokens", "overhead": 1,
                               "calibrated": not a.no_tokens}
    rep["prompts"] = prompts
    rep["models"] = [{"name": m, "description": "", "identity": "id-" + m, "available": True,
                      "unsupported": False, "reason": "", "quota": "", "quotaSupported": False,
                      "quotaReason": ""} for m in models]
    if a.unavailable_model:
        rep["models"].append({"name": a.unavailable_model, "description": "", "identity": "",
                              "available": False, "unsupported": False,
                              "reason": "model not available", "quota": "",
                              "quotaSupported": False, "quotaReason": ""})
    rep["scenarios"] = [{"concurrency": c, "startedAt": rep["startedAt"],
                         "finishedAt": rep["finishedAt"],
                         "summary": [s for s in summary if s["concurrency"] == c],
                         "results": [r for r in results if r["concurrency"] == c]} for c in concs]
    rep["summary"] = summary
    rep["results"] = [] if a.no_results else results
    rep["schemaVersion"] = "1"
    rep["reportId"] = "%016x" % rng.getrandbits(64)
    rep["suite"] = {"key": json.dumps([a.profile, a.runs, options.get("warmup", 0)]),
                    "profile": a.profile, "promptCount": len(prompts),
                    "fingerprint": {"platform": "darwin", "hwModel": "Mac17,9"}}
    with open(a.output, "w") as f:
        json.dump(rep, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
