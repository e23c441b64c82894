#!/bin/bash
# Turn a bench run's results.csv (kernel,boot,figure,unit,value) into
# summary.csv, report.md and update-latency.png in the same directory.
# Per figure and kernel: the median over boots, with min and max; then the
# patched/baseline ratio of medians with a 95% bootstrap confidence
# interval (resampling boots, fixed seed, so reruns agree).
# Environment: ICOUNT=1 when the guests counted instructions (bench.sh).
# Usage: scripts/bench-report.sh DIR
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# -eq 1 ] || { echo "usage: $0 DIR" >&2; exit 2; }
dir=$1
[ -r "$dir/results.csv" ] || die "no $dir/results.csv"

awk -F, -v resamples=2000 '
function sort(a, n,    gap, i, j, t) {	# shell sort, a[1..n]
	for (gap = int(n / 2); gap > 0; gap = int(gap / 2))
		for (i = gap + 1; i <= n; i++)
			for (j = i; j > gap && a[j - gap] > a[j]; j -= gap) {
				t = a[j]; a[j] = a[j - gap]; a[j - gap] = t
			}
}
function median(a, n) {
	sort(a, n)
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# The median of n values drawn with replacement from figure f of kernel k.
function resampled_median(f, k, n,    i, a) {
	for (i = 1; i <= n; i++)
		a[i] = value[f, k, 1 + int(rand() * n)]
	return median(a, n)
}
NR > 1 {
	if (!(($3) in unit)) { order[++figures] = $3; unit[$3] = $4 }
	count[$3, $1]++
	value[$3, $1, count[$3, $1]] = $5 + 0	# numeric, not string, order
}
END {
	srand(1)
	print "figure,unit,baseline_median,baseline_min,baseline_max,patched_median,patched_min,patched_max,ratio,ratio_ci_low,ratio_ci_high,boots"
	for (i = 1; i <= figures; i++) {
		f = order[i]
		line = f "," unit[f]
		for (k = 0; k < 2; k++) {
			kernel = k ? "patched" : "baseline"
			n = count[f, kernel]
			if (!n) { line = line ",,,"; continue }
			for (j = 1; j <= n; j++) a[j] = value[f, kernel, j]
			m[kernel] = median(a, n)
			line = line "," m[kernel] "," a[1] "," a[n]
		}
		nb = count[f, "baseline"]; np = count[f, "patched"]
		if (!nb || !np || m["baseline"] == 0) { print line ",,,," nb; continue }
		for (r = 1; r <= resamples; r++) {
			b = resampled_median(f, "baseline", nb)
			ratios[r] = b ? resampled_median(f, "patched", np) / b : 0
		}
		sort(ratios, resamples)
		printf "%s,%.4f,%.4f,%.4f,%d\n", line, m["patched"] / m["baseline"],
			ratios[int(resamples * 0.025) + 1], ratios[int(resamples * 0.975)], nb
	}
}' "$dir/results.csv" >"$dir/summary.csv"

# The Markdown report: one table per kind of figure.
awk -F, -v release="$(kernel_release)" -v icount="${ICOUNT:-0}" -v boots="$(awk -F, 'NR > 1 && $2 > b { b = $2 } END { print b }' "$dir/results.csv")" '
# met: the ratio meets it; noise: it does not, but the interval reaches it.
# The write latency with 100,000 policy VMAs must be 10x lower; a faulting
# process must see no added stall while the writes go on.
function target(f, ratio, lo, hi) {
	if (f ~ /^fault\//)
		return ">= 0.99: " (ratio >= 0.99 ? "met" : hi >= 0.99 ? "noise" : "missed")
	if (f ~ /^update\/vmas[^\/]*\/100000\//)
		return "<= 0.1: " (ratio <= 0.1 ? "met" : lo <= 0.1 ? "noise" : "missed")
	if (f ~ /^update\// || f ~ /^stall\/.*\/updating$/)
		return "<= 1.0: " (ratio <= 1.0 ? "met" : lo <= 1.0 ? "noise" : "missed")
	return ""
}
function row(    ci) {
	ci = $9 == "" ? "" : sprintf("%.3f [%.3f, %.3f]", $9, $10, $11)
	printf "| %s | %s | %.4g [%.4g, %.4g] | %.4g [%.4g, %.4g] | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7, $8, ci, target($1, $9, $10, $11)
}
BEGIN {
	print "# Benchmarks: Linux " release ", baseline against patched\n"
	print "Boots: " boots " of each kernel, alternating (baseline, patched, baseline, ...),"
	print "on 4 emulated NUMA nodes under QEMU TCG. Each value is the median over"
	print "boots of a per-boot median; brackets give the min and max over boots; the"
	print "ratio is patched/baseline with a 95% bootstrap confidence interval.\n"
	if (icount == 1) {
		print "**Instruction counts.** The guest ran with QEMU -icount shift=0: its"
		print "clock advances 1 ns per instruction executed and skips idle time, so"
		print "the load of the host does not enter the figures, and a ratio compares the"
		print "instructions each kernel executes, not the time hardware would take"
		print "(caches, TLBs and branch prediction are not modelled).\n"
	} else {
		print "**Timing caveat.** The guest runs under TCG, a CPU emulator: absolute"
		print "times are those of the emulator, not of hardware, and mean little. Ratios"
		print "between the two kernels measured in the same run on the same machine are"
		print "what these figures are for.\n"
	}
	head = "| figure | unit | baseline | patched | ratio [95% CI] | target |\n|---|---|---|---|---|---|"
}
NR == 1 { next }
{
	section = $1 ~ /^memory/ ? "Memory" : $1 ~ /^fault/ ? "Fault throughput" : \
		$1 ~ /^update/ ? "cpuset.mems write latency" : "Fault stall during updates"
	if (!(section in seen)) { seen[section] = 1; order[++sections] = section }
	line[section, ++n[section]] = $0
}
END {
	for (s = 1; s <= sections; s++) {
		print "## " order[s] "\n"
		print head
		for (i = 1; i <= n[order[s]]; i++) {
			$0 = line[order[s], i]
			row()
		}
		print ""
	}
	if (("Fault stall during updates") in seen)
		print "![update latency against VMAs](update-latency.png)"
}' "$dir/summary.csv" >"$dir/report.md"

# Latency against VMA count, idle and with a faulting process, per kernel.
for load in idle faulting; do
	awk -F, -v load="$load" '$1 ~ "^update/vmas/[0-9]+/" load "$" {
		split($1, p, "/"); print p[3], $3, $4, $5, $6, $7, $8
	}' "$dir/summary.csv" | sort -n >"$dir/vmas-$load.dat"
done
# No sweep ran (ICOUNT=1): nothing to plot.
[ -s "$dir/vmas-idle.dat" ] || exit 0
gnuplot <<GNUPLOT
set terminal pngcairo size 960,640
set output "$dir/update-latency.png"
set title "cpuset.mems write latency, one process with N policy VMAs (QEMU TCG)"
set logscale xy
set xlabel "VMAs with a policy"
set ylabel "latency of one write, us (median over boots, bars: min-max)"
set key top left
plot "$dir/vmas-idle.dat" using 1:2:3:4 with yerrorlines title "baseline", \
     "$dir/vmas-idle.dat" using 1:5:6:7 with yerrorlines title "patched", \
     "$dir/vmas-faulting.dat" using 1:2:3:4 with yerrorlines title "baseline, a process faulting", \
     "$dir/vmas-faulting.dat" using 1:5:6:7 with yerrorlines title "patched, a process faulting"
GNUPLOT
