# plot.gp: pccl-perf's figures, bus bandwidth and time against size, NCCL
# and pccl, one panel per collective.  Run by `scripts/perf --plot DIR`, which
# first splits DIR/perf.csv into DIR/plot-data/COLL-LIB-PLACEMENT.dat
# (columns: size, time_us, busbw_GBs; one type/op/root per collective):
#   gnuplot -e "dir='DIR'; title='...'" harness/perf/plot.gp
# Writes DIR/busbw.png and DIR/latency.png.
if (!exists("dir")) dir = "."
if (!exists("title")) title = "pccl-perf"
colls = "all_reduce all_gather reduce_scatter reduce broadcast"
libs = "nccl pccl"
places = "out in"
color(l) = l == 1 ? "#1f5fbf" : "#d62728"
dash(p) = p == 1 ? 1 : 2
label(l, p) = word(libs, l) . (p == 1 ? " out-of-place" : " in-place")
file(c, l, p) = sprintf("%s/plot-data/%s-%s-%s.dat", dir, word(colls, c), word(libs, l), word(places, p))

set terminal pngcairo size 1500,900 font ",10" noenhanced
set logscale x 2
set xtics 16
set format x "%.0b%B"
set xlabel "size (bytes)"
set grid
set key top left

do for [what in "busbw latency"] {
    set output sprintf("%s/%s.png", dir, what)
    set multiplot layout 2,3 title sprintf("%s: %s", title, what eq "busbw" ? "bus bandwidth (nccl-tests' busbw)" : "time per collective")
    if (what eq "busbw") { unset logscale y; set ylabel "busbw (GB/s)"; set format y "%g"; ycol = 3 }
    else { set logscale y; set ylabel "time (us)"; set format y "%g"; ycol = 2 }
    do for [c = 1:5] {
        set title word(colls, c)
        plot for [l = 1:2] for [p = 1:2] file(c, l, p) using 1:ycol with linespoints \
             lc rgb color(l) dt dash(p) pt 7 ps 0.5 title label(l, p)
    }
    unset multiplot
    unset logscale y
}
