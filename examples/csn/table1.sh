#!/bin/sh
# SPDX-License-Identifier: MIT
# The seed's Table 1: filter pipeline throughput (sink MB/s, 10^6 B/s) by buffer size, 1/2/4 filter buffers.
#   examples/csn/table1.sh [BUILD_DIR [MBYTES [REPEATS [SIZES]]]]
#     BUILD_DIR  build/<cfg> (default build/baseline)      MBYTES  data per run (default 32)
#     REPEATS    runs per cell, the median is shown (3)    SIZES   "512 1024 ..." (512 B .. 256 KiB)
# Each run is one three-program job: commrun -n 1 source S C : -n 1 filter B S C : -n 1 sink S C.
set -eu
bdir=${1:-build/baseline}
mb=${2:-32}
reps=${3:-3}
sizes=${4:-"512 1024 2048 4096 8192 16384 32768 65536 131072 262144"}
ex=$bdir/examples/csn
run=$bdir/bin/commrun
[ -x "$run" ] && [ -x "$ex/filter" ] || { echo "table1.sh: build $bdir first (scons)" >&2; exit 2; }
cfg=$(sed -n 's/^#define LC_CONFIG_NAME *"\(.*\)"/\1/p' "$bdir/include/lc_config.h")
echo "# CSN filter pipeline (seed 001, Table 1): source -> filter -> sink, config $cfg,"
echo "# $mb MB per run, median of $reps runs, sink throughput in MB/s (10^6 B/s), Tx ${CSN_TX:-synchronous}"
printf '# %-8s %10s %10s %10s\n' "Size" "1 buffer" "2 buffers" "4 buffers"
for s in $sizes; do
	c=$((mb * 1000000 / s))
	[ "$c" -ge 100 ] || c=100
	printf '%-10s' "$s"
	for b in 1 2 4; do
		vals=
		i=0
		while [ $i -lt "$reps" ]; do
			v=$("$run" --timeout 120 -n 1 "$ex/source" "$s" "$c" : -n 1 "$ex/filter" "$b" "$s" "$c" \
				: -n 1 "$ex/sink" "$s" "$c" 2>&1 | sed -n 's/.*sink ok:.*checked, \([0-9.]*\) MB\/s.*/\1/p')
			[ -n "$v" ] || { echo; echo "table1.sh: run $s $b failed" >&2; exit 1; }
			vals="$vals $v"
			i=$((i + 1))
		done
		med=$(printf '%s\n' $vals | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
		printf ' %10s' "$med"
	done
	printf '\n'
done
