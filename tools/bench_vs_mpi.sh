#!/bin/sh
# SPDX-License-Identifier: MIT
# bench_vs_mpi.sh: libcomm (baseline) against Open MPI, interleaved rounds, medians, ratios, callgrind counts.
#
# Usage: tools/bench_vs_mpi.sh [ROUNDS] [BUILD_DIR]     (default 20 rounds, build/baseline)
#
# Each round runs, in alternating order, libcomm pingpong (8 B .. 1 KiB),
# Open MPI mpi_pingpong, libcomm stream (64 KiB .. 1 MiB) and mpi_stream, so
# drift of the machine hits both sides alike.  The MPI twins are the ones the
# benchmark driver uses (tools/bench/mpi/{pingpong,stream}.c), built with
# mpicc into BUILD_DIR/../mpi as mpi_pingpong and mpi_stream; they take the
# examples' options, sweep the same sizes and print the same table.  At the end:
# medians over the rounds of 8 B and 1 KiB one-way latency and of 64 KiB and
# 1 MiB bandwidth, with the ratios libcomm / Open MPI (targets: latency
# ratio <= 2, bandwidth ratio >= 0.5).
#
# Then instructions per 8 B message on each side with callgrind: stream -s 8:8
# run twice (N1 and N2 windows of 64 messages) under valgrind on both nodes;
# (Ir(N2) - Ir(N1)) / ((N2 - N1) * 64) is the cost of one message, start-up
# cancelled.  Node 0 is the sender side, node 1 the receiver side.  Self cost
# per function is grouped by source file: framework/ = host pipeline, nic/ =
# NIC (the MCP engines, plus the host's ring accessors lc_nic_tx_slot/
# lc_nic_rx_peek/..., which live in nic/), anything else (libc, the example
# itself) = other.  The counts include polling while a side waits for the
# other, which callgrind's slowdown inflates; read them as an upper bound.
set -eu

ROUNDS=${1:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BDIR=${2:-$ROOT/build/baseline}
MPIDIR=$BDIR/../mpi
OUT=$(mktemp -d /tmp/lc_bench.XXXXXX)
MPIRUN="mpirun.openmpi --allow-run-as-root -np 2 --bind-to core --mca pml ob1 --mca btl self,vader"
CFLAGS="-std=c11 -O2 -Wall -Wextra -Werror -Wundef -Wshadow -Wmissing-prototypes -Wstrict-prototypes"
PP_ARGS="-s 8:1024 -i 5000 -w 500"
ST_ARGS="-s 64K:1M -i 400 -w 20"

case $ROUNDS in ''|*[!0-9]*) echo "usage: $0 [ROUNDS] [BUILD_DIR]" >&2; exit 2;; esac
[ -x "$BDIR/bin/commrun" ] || (cd "$ROOT" && scons -Q config=baseline >/dev/null)
for p in commrun pingpong stream; do
	[ -x "$BDIR/bin/$p" ] || { echo "bench_vs_mpi: $BDIR/bin/$p missing (scons config=baseline)" >&2; exit 1; }
done
command -v mpicc >/dev/null || { echo "bench_vs_mpi: mpicc missing (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
mkdir -p "$MPIDIR"
for p in pingpong stream; do
	mpicc $CFLAGS -I"$ROOT/examples" -I"$ROOT/tools/bench/mpi" "$ROOT/tools/bench/mpi/$p.c" -o "$MPIDIR/mpi_$p"
done

# row SIZE COLUMN < output: the value of COLUMN (2 = latency/bandwidth) in the row of SIZE
row() { sed 's/^\[[0-9]*\] //' | awk -v s="$1" -v c="$2" '$1 == s { print $c; exit }'; }

lc_pp() { "$BDIR/bin/commrun" -n 2 --timeout 300 "$BDIR/bin/pingpong" $PP_ARGS > "$OUT/pp.lc"; }
mpi_pp() { $MPIRUN "$MPIDIR/mpi_pingpong" $PP_ARGS > "$OUT/pp.mpi" 2>/dev/null; }
lc_st() { "$BDIR/bin/commrun" -n 2 --timeout 300 "$BDIR/bin/stream" $ST_ARGS > "$OUT/st.lc"; }
mpi_st() { $MPIRUN "$MPIDIR/mpi_stream" $ST_ARGS > "$OUT/st.mpi" 2>/dev/null; }

echo "# bench_vs_mpi: $ROUNDS rounds, libcomm $(basename "$BDIR") vs Open MPI (ob1 + vader), raw data in $OUT"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then lc_pp; mpi_pp; mpi_st; lc_st; else mpi_pp; lc_pp; lc_st; mpi_st; fi
	for side in lc mpi; do
		echo "$(row 8 2 < "$OUT/pp.$side") $(row 1024 2 < "$OUT/pp.$side")" \
			"$(row 65536 2 < "$OUT/st.$side") $(row 1048576 2 < "$OUT/st.$side")" >> "$OUT/rounds.$side"
	done
	printf '\rround %d/%d' "$r" "$ROUNDS" >&2
	r=$((r + 1))
done
echo >&2

# median of column C of a file
median() { awk -v c="$2" '{ print $c }' "$1" | sort -g | awk '{ v[NR] = $1 } END {
	if (NR == 0) { print "nan"; exit } if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

printf '%-22s %14s %14s %10s %s\n' "metric" "libcomm" "Open MPI" "ratio" "target"
c=1
for m in "latency 8 B (us)|<= 2" "latency 1 KiB (us)|<= 2" "bandwidth 64 KiB (MB/s)|>= 0.5" "bandwidth 1 MiB (MB/s)|>= 0.5"; do
	name=${m%%|*}; target=${m#*|}
	a=$(median "$OUT/rounds.lc" $c); b=$(median "$OUT/rounds.mpi" $c)
	printf '%-22s %14s %14s %10s %s\n' "$name" "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')" "$target"
	c=$((c + 1))
done

# ---- instructions per 8 B message (callgrind) ----
N1=20; N2=120
cg_run() {  # cg_run TAG WINDOWS: leaves $OUT/cg.TAG.<node>
	"$BDIR/bin/commrun" -n 2 --timeout 600 valgrind --tool=callgrind \
		--callgrind-out-file="$OUT/cg.$1.%q{LC_NODE}" "$BDIR/bin/stream" -s 8:8 -i "$2" -w 1 > /dev/null 2>&1
}
cg_mpi_run() {
	$MPIRUN valgrind --tool=callgrind --callgrind-out-file="$OUT/cgm.$1.%q{OMPI_COMM_WORLD_RANK}" \
		"$MPIDIR/mpi_stream" -s 8:8 -i "$2" -w 1 > /dev/null 2>&1
}
# split FILE: "host nic other" self Ir (libcomm) or "mpi other" (Open MPI); --auto=no, or the
# annotated source lines after the function list are counted a second time
split_lc() { callgrind_annotate --inclusive=no --threshold=100 --auto=no "$1" | awk '
	/^ *[0-9,]+ .*:/ && !/PROGRAM TOTALS/ { ir = $1; gsub(",", "", ir)
		# the path is relative when the source lies under the working directory
		if ($0 ~ /[ \/]framework\//) h += ir; else if ($0 ~ /[ \/]nic\//) n += ir; else o += ir }
	END { print h + 0, n + 0, o + 0 }'; }
split_mpi() { callgrind_annotate --inclusive=no --threshold=100 --auto=no "$1" | awk '
	/^ *[0-9,]+ .*:/ && !/PROGRAM TOTALS/ { ir = $1; gsub(",", "", ir)
		lib = $NF; if (lib ~ /(libmpi|mca_|open-pal|open-rte|pmix)/) m += ir; else o += ir }
	END { print m + 0, o + 0 }'; }
if command -v valgrind >/dev/null; then
	cg_run a $N1; cg_run b $N2; cg_mpi_run a $N1; cg_mpi_run b $N2
	msgs=$(((N2 - N1) * 64))
	echo
	echo "# instructions per 8 B message (callgrind, ($N2 - $N1) x 64 messages, polling included)"
	echo "# commands: commrun -n 2 valgrind --tool=callgrind --callgrind-out-file=cg.%q{LC_NODE} stream -s 8:8 -i N -w 1"
	echo "#           $MPIRUN valgrind --tool=callgrind ... mpi_stream -s 8:8 -i N -w 1;  callgrind_annotate --inclusive=no"
	printf '%-10s %-9s %10s %10s %10s %10s\n' "library" "side" "host" "NIC/MCP" "other" "total"
	for node in 0 1; do
		side=$([ $node -eq 0 ] && echo sender || echo receiver)
		set -- $(split_lc "$OUT/cg.a.$node") $(split_lc "$OUT/cg.b.$node")
		printf '%-10s %-9s %10.0f %10.0f %10.0f %10.0f\n' libcomm $side \
			"$(((${4} - ${1}) / msgs))" "$(((${5} - ${2}) / msgs))" "$(((${6} - ${3}) / msgs))" \
			"$(((${4} + ${5} + ${6} - ${1} - ${2} - ${3}) / msgs))"
		set -- $(split_mpi "$OUT/cgm.a.$node") $(split_mpi "$OUT/cgm.b.$node")
		printf '%-10s %-9s %10.0f %10s %10.0f %10.0f\n' "Open MPI" $side \
			"$(((${3} - ${1}) / msgs))" "-" "$(((${4} - ${2}) / msgs))" "$(((${3} + ${4} - ${1} - ${2}) / msgs))"
	done
	echo "# host = framework/ functions (Open MPI: libmpi, mca_*, open-pal); NIC/MCP = nic/ functions; other = libc and the benchmark's own code"
fi
