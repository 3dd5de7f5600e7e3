/* SPDX-License-Identifier: MIT */
/* legend.c: the metric legend table (legend.h). Adding a metric to the bundle means adding its
 * row here; docs/BUNDLE.md's "Metrics" section is this table printed by `legend --markdown`. */
#include "bundle/legend.h"

#include <string.h>

#define M "measured"
#define P "proxy"
#define D "derived"
#define C "controlled"

static const rl_legend_row rows[] = {
    /* settings: the inputs of the sweep */
    {"settings.threads", "threads swept", "threads", C, false,
     "The thread counts llama-bench was run with (-t)."},
    {"settings.depths", "depths swept", "tokens", C, false,
     "Tokens already in the KV cache before decode is timed (-d); 0 is short context."},
    {"settings.n_prompt", "prompt length", "tokens", C, false,
     "Tokens processed per prefill measurement (-p)."},
    {"settings.n_gen", "generated tokens", "tokens", C, false,
     "Tokens generated per decode measurement (-n)."},
    {"settings.reps", "repetitions", "count", C, false,
     "Times llama-bench repeats each measurement (-r); each repetition is one sample."},
    {"settings.n_gpu_layers", "GPU layers", "layers", C, false,
     "Layers offloaded to a GPU (-ngl); 0 keeps every weight in host memory."},
    {"settings.timeout_s", "timeout", "s", C, true,
     "Wall-clock limit for one llama-bench invocation before it is stopped."},

    /* membw: the bandwidth ceiling */
    {"membw.peak_read_GBs", "bandwidth ceiling", "GB/s", M, false,
     "Best read-only memory bandwidth over kernels and thread counts; kind controlled when "
     "given with --peak-bw."},
    {"membw.median_GBs", "ceiling median", "GB/s", M, true,
     "Median over the repetitions of the kernel and thread count that gave the ceiling."},
    {"membw.stability", "ceiling stability", "1", D, true,
     "Median over best of that cell; below 0.75 the ceiling is flagged unstable."},
    {"membw.single_thread_GBs", "single-thread bandwidth", "GB/s", M, true,
     "Best read-only bandwidth one thread reaches on its own."},
    {"membw.saturated_GBs", "bandwidth at most threads", "GB/s", M, true,
     "Best read-only bandwidth at the largest thread count measured."},
    {"membw.saturation_threads", "saturation threads", "threads", D, true,
     "Fewest threads whose bandwidth is within 5% of the ceiling."},
    {"membw.copy_GBs", "copy bandwidth", "GB/s", M, true,
     "Best copy bandwidth; reported but kept out of the ceiling (write-allocate traffic)."},
    {"membw.runs[].samples_GBs", "bandwidth samples", "GB/s", M, true,
     "Every timed repetition of one kernel at one thread count."},
    {"membw.bracket.probes[].GBs", "ceiling probe", "GB/s", M, true,
     "A short ceiling measurement (quick samples at the thread count that set the ceiling) "
     "before the sweep, between models (3 or more) or after it; with its at, t_s and utc."},
    {"membw.bracket.spread_pct", "ceiling spread", "%", D, true,
     "How far the lowest probe is below the highest, as a share of the highest."},
    {"membw.bracket.limit_pct", "ceiling drift limit", "%", C, true,
     "A spread over this is drift: a ceiling_drift warning naming both numbers."},
    {"membw.bracket.ceiling_used", "ceiling used", "label", D, true,
     "Which measurement the analysis uses as the ceiling: peak, the full membw before the "
     "probes (membw.peak_read_GBs)."},

    /* models and their runs */
    {"models[].bytes_per_token.value", "bytes per token", "bytes", M, false,
     "Bytes decode reads per generated token under the bundle's bytes convention."},
    {"models[].runs[].threads", "run threads", "threads", C, false,
     "Thread count of this llama-bench invocation."},
    {"models[].runs[].depth", "run depth", "tokens", C, false,
     "KV-cache depth of this llama-bench invocation."},
    {"models[].runs[].decode", "decode rate", "tok/s", M, false,
     "Token generation rate: n_gen x 1e9 / ns per repetition, with samples and statistics."},
    {"models[].runs[].decode.samples", "decode samples", "tok/s", M, false,
     "One decode rate per repetition, recomputed from llama-bench's samples_ns."},
    {"models[].runs[].decode.stats.mean", "decode mean", "tok/s", D, true,
     "Arithmetic mean of the decode samples."},
    {"models[].runs[].decode.stats.median", "decode median", "tok/s", D, true,
     "Middle decode sample (p50)."},
    {"models[].runs[].decode.stats.sd", "decode spread", "tok/s", D, true,
     "Sample standard deviation of the decode samples; unavailable with one sample."},
    {"models[].runs[].decode.stats.cv", "decode variation", "1", D, true,
     "Standard deviation over mean: run-to-run noise as a fraction."},
    {"models[].runs[].decode.stats.ci95", "decode 95% interval", "tok/s", D, true,
     "Student-t 95% confidence interval of the mean (low, high, t, df)."},
    {"models[].runs[].decode.mean", "imported decode mean", "tok/s", M, true,
     "Mean rate an imported source gave without samples (no stats then)."},
    {"models[].runs[].prefill", "prefill rate", "tok/s", M, false,
     "Prompt processing rate: n_prompt x 1e9 / ns per repetition, with samples and statistics."},
    {"models[].runs[].prefill.stats.mean", "prefill mean", "tok/s", D, true,
     "Arithmetic mean of the prefill samples."},
    {"models[].runs[].elapsed_s", "run wall time", "s", M, true,
     "Wall-clock time of the whole llama-bench invocation."},

    /* analysis: the roofline */
    {"analysis.ceiling.GBs", "ceiling used", "GB/s", M, false,
     "The bandwidth ceiling the analysis divides by; kind controlled when given with --peak-bw."},
    {"analysis.models[].operating_point.decode_tok_s", "operating decode rate", "tok/s", M, false,
     "Best depth-0 decode rate over the thread counts: the model's operating point."},
    {"analysis.models[].operating_point.threads", "operating threads", "threads", D, false,
     "Thread count of the operating point (ties go to fewer threads)."},
    {"analysis.models[].decode_bw_GBs", "effective bandwidth", "GB/s", D, false,
     "Operating decode rate x bytes per token / 1e9: the bandwidth decode actually drew."},
    {"analysis.models[].utilisation.util_pct", "utilisation", "%", D, false,
     "Effective bandwidth as a share of the ceiling; never clamped, so above 100 is possible."},
    {"analysis.models[].knee.threads", "thread knee", "threads", D, false,
     "Fewest threads whose depth-0 decode is within 2% of the best."},
    {"analysis.models[].loss_at_max_threads.pct", "loss at max threads", "%", D, true,
     "How far decode at the highest thread count falls below the best, when it is not the best."},
    {"analysis.models[].decode_gain_at_top.pct", "decode gain at top", "%", D, false,
     "Decode gain from the next-lower thread count to the highest; large means core-bound."},
    {"analysis.models[].prefill.tok_s", "best prefill", "tok/s", M, false,
     "Best depth-0 prefill rate over the thread counts."},
    {"analysis.models[].prefill_scaling.ratio", "prefill scaling", "x", D, false,
     "Best prefill over prefill at the fewest threads that measured it."},
    {"analysis.models[].prefill_scaling.efficiency", "prefill efficiency", "1", D, false,
     "Prefill scaling over the thread ratio; 1 is perfect scaling with cores."},
    {"analysis.models[].fit_residual.tok_s", "fit residual", "tok/s", D, false,
     "Operating decode rate minus what the fitted bandwidth line predicts for the model."},
    {"analysis.fit.bw_GBs", "fitted bandwidth", "GB/s", D, false,
     "Slope of decode rate against 1 / bytes per token through the origin, over dense models."},
    {"analysis.fit.r2", "fit R^2", "1", D, false,
     "How well that line explains the operating points (about the mean of the rates)."},
    {"analysis.fit.n_points", "fitted models", "models", D, false,
     "Operating points the fit used."},
    {"analysis.utilisation.median_pct", "median utilisation", "%", D, false,
     "Median utilisation over dense models without GPU offload; the verdict reads it."},
    {"analysis.utilisation.min_pct", "lowest utilisation", "%", D, false,
     "Lowest utilisation among those models."},
    {"analysis.utilisation.max_pct", "highest utilisation", "%", D, false,
     "Highest utilisation among those models."},
    {"analysis.verdict.label", "verdict", "label", D, false,
     "memory-bound, partly memory-bound, not bandwidth-limited or compute-bound, with evidence."},
    {"analysis.verdict.provisional", "provisional verdict", "flag", D, true,
     "True when a measurement was disturbed: the verdict text then says \"looks ..., but\"."},
    {"analysis.models[].noise.cv_pct", "decode noise", "%", D, true,
     "CV of the operating-point decode repetitions; above 5% the warning noisy."},
    {"analysis.models[].noise.outliers", "decode outliers", "count", D, true,
     "Repetitions with a modified Z-score (x - median) / MAD above 14.826 (hyperfine's rule)."},
    {"analysis.disturbance.n_disturbed", "disturbed measurements", "count", D, true,
     "Measurements whose machine state was marked disturbed; any one gives the warning disturbed."},
    {"analysis.disturbance.n_other_processes", "disturbed by load here", "count", D, true,
     "Of the disturbed measurements, those where other processes exceeded their CPU limit."},
    {"analysis.disturbance.n_steal", "disturbed by the host", "count", D, true,
     "Of the disturbed measurements, those where steal (the hypervisor's share) exceeded its "
     "limit."},
    {"analysis.disturbance.text", "what was seen", "text", D, true,
     "Largest share of the CPUs other processes used (or steal), over how many of which runs."},
    {"analysis.provisional", "provisional client numbers", "flag", D, true,
     "A client bundle's analysis: true when an operating point was disturbed; headline marked."},
    {"analysis.knee.threads", "common knee", "threads", D, false,
     "Most common per-model thread knee among models swept over two or more thread counts."},
    {"analysis.prefill_scaling.median", "median prefill scaling", "x", D, false,
     "Median of the per-model prefill scaling ratios."},
    {"analysis.long_context[].decode_tok_s", "long-context decode", "tok/s", M, true,
     "Decode rate at a KV-cache depth above 0, at the model's operating thread count."},
    {"analysis.long_context[].pct_of_empty_cache.pct", "share of empty-cache rate", "%", D, true,
     "That rate as a share of the depth-0 rate at the same thread count."},
    {"analysis.long_context[].bytes_only_prediction.pct", "bytes-only prediction", "%", D, true,
     "Share predicted if decode only streamed bytes: weights / (weights + depth x KV bytes)."},
    {"analysis.depth_fits[].slope_us_per_token", "per-token time added per token of depth", "us", D,
     true, "Least-squares slope of 1e6 / decode tok/s on depth over the model's depths."},
    {"analysis.depth_fits[].us_per_kv_byte", "time a KV byte adds per token", "us", D, true,
     "That slope over the model's KV bytes per token."},
    {"analysis.depth_fits[].check.error_pct", "depth-fit check", "%", D, true,
     "The fit without the deepest depth, predicting it: (predicted - measured) / measured."},

    /* client: the streaming benchmark of seed 001, one element of points[] per operating point
     * (client/client_metrics.c); distributions: samples and stats over successful requests */
    {"client.points[].concurrency", "concurrency", "requests", C, true,
     "Requests kept in flight at this operating point (--concurrency, --sweep-concurrency)."},
    {"client.points[].request_rate", "request rate", "req/s", C, true,
     "Arrival rate of new requests (--request-rate); null for a closed loop."},
    {"client.points[].requests.measured", "requests measured", "count", M, true,
     "Measured requests (warm-ups excluded); ok + failed; a retried request counts once."},
    {"client.points[].requests.success_rate", "success rate", "1", M, true,
     "Successful requests over measured requests."},
    {"client.points[].window", "measured window", "ms", M, true,
     "First send (a retried request's first attempt) to last end of the successful requests: the "
     "denominator of every rate below."},
    {"client.points[].metrics.ttft", "TTFT", "ms", P, true,
     "Send to the first streamed chunk: a chunk may carry several tokens, so a proxy for time "
     "to first token."},
    {"client.points[].metrics.e2e", "E2E latency", "ms", M, true,
     "Send to the end of the answer (process exit or the end of the HTTP stream)."},
    {"client.points[].metrics.deliveries", "deliveries", "count", D, true,
     "Chunks per answer after grouping chunks less than 5 ms after the previous one."},
    {"client.points[].metrics.generation", "generation time", "ms", D, true,
     "Last delivery minus the first; unavailable for a one-delivery answer (prefill and decode "
     "not separable)."},
    {"client.points[].metrics.tpot", "TPOT", "ms", D, true,
     "Generation time over the tokens after the first delivery; needs at least 2 such tokens "
     "and their counts."},
    {"client.points[].metrics.second_chunk", "second-chunk time", "ms", P, true,
     "Time from the first delivery to the second: streaming start-up smoothness."},
    {"client.points[].metrics.chunk_gap", "chunk gaps", "ms", P, true,
     "Every gap between consecutive deliveries, pooled over successful requests."},
    {"client.points[].metrics.prompt_tokens", "prompt tokens", "tokens", M, true,
     "Prompt tokens per request as the server (usage) or the counter command reported them."},
    {"client.points[].metrics.output_tokens", "output tokens", "tokens", M, true,
     "Answer tokens per request (usage, per-delta counts, or the calibrated counter)."},
    {"client.points[].metrics.first_delivery_tokens", "first-delivery tokens", "tokens", M, true,
     "Tokens that arrived with the first delivery (per-delta counts or the counter on its "
     "text)."},
    {"client.points[].metrics.prefill_tok_s", "prefill rate (proxy)", "tok/s", P, true,
     "Prompt tokens over TTFT; TTFT includes start-up and queueing, so this understates "
     "prefill."},
    {"client.points[].metrics.output_tok_s", "per-request output rate", "tok/s", D, true,
     "Output tokens over E2E seconds, per request."},
    {"client.points[].metrics.decode_tok_s", "per-request decode rate", "tok/s", D, true,
     "Tokens after the first delivery over the generation time, per request."},
    {"client.points[].metrics.decode_throughput", "decode rate (token-weighted)", "tok/s", D, true,
     "Decode tokens summed over requests divided by their summed generation time."},
    {"client.points[].metrics.output_throughput", "output token throughput", "tok/s", D, true,
     "Output tokens of every successful request over the measured window."},
    {"client.points[].metrics.total_throughput", "total token throughput", "tok/s", D, true,
     "Prompt and output tokens of every successful request over the measured window."},
    {"client.points[].metrics.rps", "requests per second", "req/s", M, true,
     "Successful requests over the measured window."},
    {"client.points[].metrics.repeatability", "repeatability", "1", D, true,
     "Per prompt with 2 or more runs, the share of runs giving the commonest normalised output "
     "hash; averaged."},
    {"client.points[].metrics.stability_cv", "stability CV", "1", D, true,
     "Per prompt with 2 or more runs, the E2E coefficient of variation; averaged over prompts."},
    {"client.points[].goodput.good", "good requests", "count", D, true,
     "Successful requests meeting every SLO set; a failed request or a missing SLO metric is "
     "not good."},
    {"client.points[].goodput.rps", "goodput", "req/s", D, true,
     "Good requests over the measured window; 0 when SLOs are set and none passes."},
    {"client.points[].machine.measured_server.pids", "measured server", "pids", M, true,
     "Server processes whose CPU time was the measured work, not other processes'; [] and why."},
    {"client.points[].machine.measured_server.cpu_pct", "measured server's CPU", "%", M, true,
     "Their CPU time over wall x CPUs during the point (/proc/PID/stat utime..cstime)."},
    /* advice: advise --measure, one table per thread count (src/advise_bundle.c) */
    {"advice.rules.tie_pct", "tie band", "%", C, true,
     "Formats whose decode rate is within this share of the fastest count as tied."},
    {"advice.rules.matched_bytes_pct", "matched-bytes band", "%", C, true,
     "Files whose streamed bytes per token are within this share of each other stream the same."},
    {"advice.tables[].threads", "advice threads", "threads", C, true,
     "Thread count of one advice table; nothing is averaged across thread counts."},
    {"advice.tables[].rows[].decode", "advice decode rate", "tok/s", M, true,
     "The file's depth-0 decode rate at that thread count, as its run has it (samples, stats)."},
    {"advice.tables[].rows[].tok_s", "advice tok/s", "tok/s", D, true,
     "Mean of those decode samples (basis predicted: the two-roof rate); fastest first."},
    {"advice.tables[].rows[].two_roof.tok_s", "advice predicted tok/s", "tok/s", D, true,
     "advise --measure --predict: the file's two-roof rate from the calibration; not measured."},
    {"advice.tables[].rows[].vs_best_pct", "vs fastest", "%", D, true,
     "100 x (tok/s / fastest tok/s - 1); within 5% counts as tied."},
    {"advice.tables[].rows[].streamed_MiB", "streamed per token", "MiB", D, true,
     "Bytes decode reads per token from the GGUF tensor table (streamed convention), in MiB."},
    {"advice.tables[].rows[].streamed_GBs", "streamed bandwidth", "GB/s", D, true,
     "tok/s x streamed bytes per token / 1e9: the traffic the format sustains."},
    {"advice.tables[].rows[].envelope_deficit_pct", "below envelope", "%", D, true,
     "How far the file's GB/s falls below the best of its table: time spent unpacking."},
    {"advice.tables[].rows[].on_label_pct", "on-label share", "%", D, true,
     "Share of the repeating layers' bytes in the type the label names (GGUF composition)."},
    {"advice.tables[].rows[].bits_per_weight", "bits per weight", "bits", D, true,
     "8 x repeating-layer bytes / their weights: what the file stores, not what it is named."},
    {"advice.tables[].matched_bytes.spread_pct", "matched-bytes spread", "%", D, true,
     "100 x (fastest / slowest - 1) inside the largest group streaming within 3% of the same "
     "bytes."},
    /* predictions: diagnose --predict (predict.h) */
    {"predictions.fit.bw_GBs", "prediction bandwidth", "GB/s", D, true,
     "The fitted bandwidth the predictions divide by (analysis.fit.bw_GBs)."},
    {"predictions.fit.bw_low_GBs", "prediction bandwidth low", "GB/s", D, true,
     "Smallest effective bandwidth among the fitted models: the interval's low end."},
    {"predictions.fit.bw_high_GBs", "prediction bandwidth high", "GB/s", D, true,
     "Largest effective bandwidth among the fitted models: the interval's high end."},
    {"predictions.models[].rate.bw_GBs", "predicted model bandwidth", "GB/s", D, true,
     "The bandwidth this model's prediction divides by: the through-origin fit over the fitted "
     "models of its format (source format), else the fit over all (source fit)."},
    {"predictions.models[].rate.bw_low_GBs", "predicted model bandwidth low", "GB/s", D, true,
     "Low end of the model's interval: its format's smallest fitted bandwidth (one model: the "
     "fit's interval scaled to its rate)."},
    {"predictions.models[].rate.bw_high_GBs", "predicted model bandwidth high", "GB/s", D, true,
     "High end of the model's interval, by the same rule."},
    {"predictions.models[].weights_bytes", "predicted model bytes", "bytes", D, true,
     "A predicted model's weight bytes per token from its GGUF header, by the fit's convention."},
    {"predictions.models[].kv_bytes_per_token", "predicted model KV bytes", "bytes", D, true,
     "KV-cache bytes a predicted model adds per token of context (f16 K and V)."},
    {"predictions.models[].points[].tok_s", "predicted decode rate", "tok/s", D, true,
     "The model's rate.bw / (weights + depth x KV bytes): the decode rate it would reach."},
    {"predictions.models[].points[].tok_s_low", "predicted decode low", "tok/s", D, true,
     "The same bytes over the interval's low bandwidth."},
    {"predictions.models[].points[].tok_s_high", "predicted decode high", "tok/s", D, true,
     "The same bytes over the interval's high bandwidth."},

    /* calibration (calibrate, diagnose --calibrate; bundle/calib.h) */
    {"calibration.method.n_gen", "calibration tokens", "tokens", C, true,
     "Tokens generated per repetition of each calibration run (llama-bench -p 0 -n N)."},
    {"calibration.method.llc_bytes", "calibration cache size", "bytes", C, true,
     "Last-level cache the calibration models are sized from (detected, probed, or --llc-mib)."},
    {"calibration.method.cache_probe.points[].GBs", "cache probe read rate", "GB/s", M, true,
     "Best read-only rate of a quick membw measurement at one working set around the detected "
     "last-level cache; the last set (8 x the cache) is the DRAM reference."},
    {"calibration.method.cache_probe.used_llc_bytes", "probed cache size", "bytes", D, true,
     "The cache size the plan uses: the detected one when half of it reads 1.2 x faster than "
     "DRAM, else twice the largest probed set that does."},
    {"calibration.sets[].threads", "calibration threads", "threads", C, true,
     "Thread count of one set of calibrated types; nothing is shared across sets."},
    {"calibration.sets[].types[].points[].bytes_per_token.value", "calibration model bytes",
     "bytes", M, true, "Bytes a calibration model streams per token, from its GGUF tensor table."},
    {"calibration.sets[].types[].points[].run.decode", "calibration decode rate", "tok/s", M, true,
     "The llama-bench run of one calibration model, kept as a sweep run keeps it."},
    {"calibration.sets[].types[].points[].rate.us_per_token", "calibration time per token", "us", D,
     true, "1e6 over the run's mean decode rate."},
    {"calibration.sets[].types[].points[].rate.GBs", "calibration model bandwidth", "GB/s", D, true,
     "The model's bytes per token over its time per token: what that model drew."},
    {"calibration.sets[].types[].compute_roof.GBs", "compute roof", "GB/s", D, true,
     "1e-3 over the slope of time per token against bytes through the cache-resident small and "
     "mid models: the rate the type's kernel consumes weights held in cache."},
    {"calibration.sets[].types[].stream.GBs", "streaming rate", "GB/s", D, true,
     "The stream model's bytes over its time per token less the fixed cost: the type's rate "
     "from DRAM."},
    {"calibration.sets[].types[].fixed.us", "fixed cost per token", "us", D, true,
     "Intercept of that line: the time per token that does not scale with bytes, at the "
     "calibration models' 4 layers."},
    {"calibration.sets[].types[].per_layer.us", "cost per layer", "us", D, true,
     "What a layer costs beyond its bytes: the deep model (16 layers) against the small one."},
    {"calibration.sets[].types[].base.us", "base cost per token", "us", D, true,
     "The fixed cost less its layers' share: the time per token of a model with no layer."},
    {"calibration.sets[].types[].per_matrix.us", "cost per streamed matrix", "us", D, true,
     "The stream (16 layers) and wide (4 layers, the same bytes) models' times less the fixed "
     "cost, split into bytes and matrices: what each matrix read from DRAM costs beyond its "
     "bytes."},
    {"calibration.sets[].types[].per_matrix.stream_limit_GBs", "stream limit", "GB/s", D, true,
     "The same split's rate per byte: the type's rate from DRAM with no per-matrix cost."},
    {"calibration.sets[].types[].per_row.ns", "cost per streamed row", "ns", D, true,
     "The same two times split into bytes and matrix rows (one dot product each): what each "
     "row read from DRAM costs beyond its bytes. The decode model's form."},
    {"calibration.sets[].types[].per_row.stream_limit_GBs", "stream limit by rows", "GB/s", D, true,
     "The row split's rate per byte: the type's rate from DRAM with no per-row cost."},

    /* the machine's state during a measurement (measure/quiet.h); the same "machine" object
     * sits beside each membw.runs[] and client.points[] */
    {"models[].runs[].machine.interval_s", "state interval", "s", M, true,
     "Wall time between the two readings of the machine's counters around the measurement."},
    {"models[].runs[].machine.cpus", "CPUs counted", "CPUs", M, true,
     "CPUs in /proc/stat: the capacity other processes' share is taken of."},
    {"models[].runs[].machine.other_cpu_pct", "other processes' CPU", "%", M, true,
     "CPU time of all CPUs (/proc/stat) minus ours, our waited-for children's and the measured "
     "server's, over wall x CPUs; null when unreadable."},
    {"models[].runs[].machine.steal_pct", "steal", "%", M, true,
     "Share of all CPU time the hypervisor gave to other guests (/proc/stat steal)."},
    {"models[].runs[].machine.psi_cpu_some_pct", "CPU pressure", "%", M, true,
     "Share of the interval some runnable task waited for a CPU (/proc/pressure/cpu)."},
    {"models[].runs[].machine.procs_running_max", "runnable tasks", "tasks", M, true,
     "Largest procs_running of /proc/stat at the two readings."},
    {"models[].runs[].machine.freq_mhz_min", "lowest CPU frequency", "MHz", M, true,
     "Lowest cpufreq scaling_cur_freq of any CPU at the two readings."},
    {"models[].runs[].machine.freq_mhz_max", "highest CPU frequency", "MHz", M, true,
     "Highest cpufreq scaling_cur_freq of any CPU at the two readings."},
    {"models[].runs[].machine.throttle_events", "thermal throttling", "events", M, true,
     "Increase of the CPUs' thermal_throttle core_throttle_count over the interval."},
    {"models[].runs[].machine.disturbed", "disturbed", "1", D, true,
     "True when other processes' CPU or steal exceeded its limit (environment.machine_state)."},
    {"models[].runs[].machine.why", "why disturbed", "text", D, true,
     "What exceeded its limit, e.g. other processes used 88% of the CPUs; empty when quiet."},
    {"environment.machine_state.measurements", "measurements with state", "count", D, true,
     "Runs, membw runs and client points that recorded a machine object (attempts excluded)."},
    {"environment.machine_state.disturbed", "disturbed measurements", "count", D, true,
     "How many of those were disturbed."},
    {"environment.machine_state.other_cpu_pct_max", "most other CPU", "%", D, true,
     "Largest other_cpu_pct of those measurements."},
    {"environment.machine_state.steal_pct_max", "most steal", "%", D, true,
     "Largest steal_pct of those measurements."},
    {"environment.machine_state.limits.other_cpu_pct", "other CPU limit", "%", C, true,
     "Other processes' share of the CPUs above which a measurement is disturbed (25)."},
    {"environment.machine_state.limits.steal_pct", "steal limit", "%", C, true,
     "Steal above which a measurement is disturbed (5)."},

    /* overhead: what the tool itself cost */
    {"overhead.wall_s", "tool wall time", "s", M, true,
     "Wall-clock time of the whole command, measurements included."},
    {"overhead.tool_cpu_s", "tool CPU time", "s", M, true,
     "CPU time llama-roofline spent itself, apart from membw's threads and llama-bench."},
    {"overhead.membw_cpu_s", "membw CPU time", "s", M, true,
     "CPU time the bandwidth measurement's threads used."},
};

static const char *const kinds[RL_LEGEND_N_KINDS] = {M, P, D, C};

size_t rl_legend_count(void)
{
    return sizeof rows / sizeof rows[0];
}

const rl_legend_row *rl_legend_at(size_t i)
{
    return i < rl_legend_count() ? &rows[i] : NULL;
}

const char *rl_legend_kind(size_t i)
{
    return i < RL_LEGEND_N_KINDS ? kinds[i] : NULL;
}

bool rl_legend_kind_known(const char *k)
{
    for (size_t i = 0; i < RL_LEGEND_N_KINDS; i++)
        if (strcmp(k, kinds[i]) == 0)
            return true;
    return false;
}
