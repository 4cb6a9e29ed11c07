# ab-summary.awk: summarises an A/B benchmark of Debian's library ("upstream")
# against ours ("ours"), for the bench scripts in this directory.
#
# Input lines: TEST LIB REP VALUE (whitespace separated), one per measurement;
# LIB is "upstream" or "ours", REP the repetition that ran both back to back.
# Variables (awk -v):
#   higher  space-separated names of the tests where a higher value is better
#           (bandwidths); every other test is lower-is-better (times)
#   order   optional space-separated test order; default: order of first
#           appearance
#   width   width of the test-name column (default 14)
#   spread  1: also the noise: per test and library the spread of its runs
#           ((worst - best) / median, in %), and per test the range of the
#           per-repetition ratios (lowest and highest)
#
# Prints, per test and library, the median, best and worst value and the run
# count; then per test three ratios ours / Debian's: of the medians, of the
# best runs (the least disturbed by the host's other load) and the median of
# the per-repetition ratios.
BEGIN {
  if (width == "") width = 14
  nh = split(higher, h, " ")
  for (i = 1; i <= nh; i++) is_higher[h[i]] = 1
}
{
  v[$1, $2, $3] = $4; reps[$3] = 1
  if (!($1 in seen)) { seen[$1] = 1; appeared[++na] = $1 }
}
function sort_list(list, k,   i, j, t) {
  for (i = 2; i <= k; i++)
    for (j = i; j > 1 && list[j - 1] > list[j]; j--) { t = list[j]; list[j] = list[j - 1]; list[j - 1] = t }
}
function median(list, k) {
  if (k == 0) return -1
  return (k % 2) ? list[(k + 1) / 2] : (list[k / 2] + list[k / 2 + 1]) / 2
}
function summary(test, lib,   k, r, list) {
  k = 0
  for (r in reps) if ((test, lib, r) in v) list[++k] = v[test, lib, r]
  sort_list(list, k)
  med[lib] = median(list, k)
  best[lib] = (test in is_higher) ? list[k] : list[1]
  worst[lib] = (test in is_higher) ? list[1] : list[k]
  printf "%-*s %-9s %10.2f %10.2f %10.2f %5d", width, test, lib, med[lib], best[lib], worst[lib], k
  if (spread) printf " %8s", (med[lib] > 0 ? sprintf("%.1f%%", 100 * (list[k] - list[1]) / med[lib]) : "-")
  printf "\n"
}
function ratio(a, b) { return (a > 0 && b > 0) ? sprintf("%.3f", a / b) : "-" }
END {
  nt = order != "" ? split(order, tests, " ") : 0
  if (!nt) for (i = 1; i <= na; i++) tests[++nt] = appeared[i]
  printf "%-*s %-9s %10s %10s %10s %5s", width, "test", "library", "median", "best", "worst", "runs"
  if (spread) printf " %8s", "spread"
  printf "\n"
  for (t = 1; t <= nt; t++) {
    test = tests[t]
    summary(test, "upstream"); summary(test, "ours")
    k = 0
    for (r in reps)
      if ((test, "ours", r) in v && (test, "upstream", r) in v && v[test, "upstream", r] > 0)
        pr[++k] = v[test, "ours", r] / v[test, "upstream", r]
    sort_list(pr, k)
    line[t] = sprintf("  %-*s medians %s, best runs %s, per-repetition (median) %s", width, test,
                      ratio(med["ours"], med["upstream"]), ratio(best["ours"], best["upstream"]),
                      k ? sprintf("%.3f", median(pr, k)) : "-")
    if (spread && k) line[t] = line[t] sprintf(", per-repetition range %.3f to %.3f", pr[1], pr[k])
    delete pr
  }
  print ""
  print "ratios ours / Debian's (1.000 = same):"
  for (t = 1; t <= nt; t++) print line[t]
}
