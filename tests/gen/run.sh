#!/bin/sh
# SPDX-License-Identifier: MIT
# Generator tests: every diagnostic case against its expected stderr, then the positive checks.
#
# Each tests/gen/cases/<name>/ holds configs/ (the entry is configs/case.lua),
# optionally protocols/ (its own registry, else the repo's), optionally args
# (extra generator arguments), expected.err (exact stderr) and expected.rc
# (exit status, 1 when absent).  LC_REGEN=1 rewrites expected.err/expected.rc.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
gen="$root/gen/main.lua"
lua=${LUA:-lua5.4}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

# --- diagnostic cases -------------------------------------------------------
for dir in "$here"/cases/*/; do
	dir=${dir%/}
	name=${dir##*/}
	set -- --configs-dir configs --config configs/case.lua
	if [ -d "$dir/protocols" ]; then set -- "$@" --protocols-dir protocols; fi
	extra=""
	[ -f "$dir/args" ] && extra=$(cat "$dir/args")
	out="$tmp/$name.out"
	# shellcheck disable=SC2086
	(cd "$dir" && "$lua" "$gen" "$@" $extra --out "$out" --json "$out/config.json") \
		2>"$tmp/$name.err.raw" >/dev/null
	rc=$?
	sed -e "s|$dir/||g" -e "s|$root/||g" "$tmp/$name.err.raw" >"$tmp/$name.err"
	want_rc=1
	[ -f "$dir/expected.rc" ] && want_rc=$(cat "$dir/expected.rc")
	if [ "${LC_REGEN:-0}" = 1 ]; then
		cp "$tmp/$name.err" "$dir/expected.err"
		if [ "$rc" != 1 ]; then echo "$rc" >"$dir/expected.rc"; else rm -f "$dir/expected.rc"; fi
		echo "regenerated $name (exit $rc)"
		want_rc=$rc
	fi
	if [ "$rc" != "$want_rc" ]; then
		ko "$name: exit $rc, expected $want_rc"
	elif ! diff -u "$dir/expected.err" "$tmp/$name.err"; then
		ko "$name: stderr differs"
	elif [ "$rc" != 0 ] && [ -e "$out" ]; then
		ko "$name: failed but wrote $out"
	else
		ok
	fi
done

# Resolution of extends (tests/gen/resolve): --print of each key against expected.print.
res="$here/resolve"
while IFS='|' read -r key extra want; do
	case "$key" in '#'*|'') continue ;; esac
	# shellcheck disable=SC2086
	got=$(cd "$res" && "$lua" "$gen" --configs-dir configs --config configs/case.lua $extra \
		--print "$key" 2>&1)
	if [ "$got" = "$want" ]; then ok; else ko "resolve: --print $key $extra: got '$got', want '$want'"; fi
done <"$res/expected.print"

# --- positive checks on the shipped configs ----------------------------------
cflags="-std=c11 -Wall -Wextra -Werror -Wundef -Wshadow -Wmissing-prototypes -Wstrict-prototypes"
cat >"$tmp/all.c" <<'CEOF'
/* Includes every generated header: they must compile standalone and together. */
#include "lc_config.h"
#include "lc_protocols.h"
#include "lc_frame_hdr.h"
#include "lc_proto_state.h"
#include "lc_composite_host.h"
#include "lc_composite_nic.h"
#include "lc_composite_launcher.h"
#include "lc_coop.h"
#include "lc_proto_stats.h"
#include "lc_proto_api.h"
int lc_gen_probe(void);
int lc_gen_probe(void)
{
	struct lc_proto_state s = { .lc_unused = 0 };
	return s.lc_unused + (int)sizeof(struct lc_frame_hdr) + LC_PC_REF_init;
}
CEOF
for cfg in $("$lua" "$gen" --list-configs); do
	"$lua" "$gen" --config "$root/configs/$cfg.lua" --check-only 2>"$tmp/check.err"
	rc=$?
	if [ "$rc" = 3 ]; then
		ok   # selects a protocol that has no implementation yet: generation must refuse it
		"$lua" "$gen" --config "$root/configs/$cfg.lua" --out "$tmp/x-$cfg" 2>/dev/null \
			&& ko "$cfg: unimplemented protocol, yet generation succeeded"
		[ -e "$tmp/x-$cfg" ] && ko "$cfg: refused but wrote $tmp/x-$cfg"
		continue
	fi
	[ "$rc" = 0 ] || { ko "$cfg: --check-only exit $rc: $(cat "$tmp/check.err")"; continue; }
	a="$tmp/a-$cfg"
	b="$tmp/b-$cfg"
	if "$lua" "$gen" --config "$root/configs/$cfg.lua" --out "$a" --json "$a/config.json" &&
		"$lua" "$gen" --config "$root/configs/$cfg.lua" --out "$b" --json "$b/config.json"; then
		ok
	else
		ko "$cfg: generation failed"
		continue
	fi
	if diff -r "$a" "$b" >/dev/null; then ok; else ko "$cfg: two runs differ"; fi
	# A second run into the same directory must not touch any file.
	touch -d '2001-01-01 00:00:00' "$a"/*
	"$lua" "$gen" --config "$root/configs/$cfg.lua" --out "$a" --json "$a/config.json"
	if [ -z "$(find "$a" -type f -newermt '2001-01-02')" ]; then ok; else ko "$cfg: rerun touched files"; fi
	for cc in gcc clang; do
		command -v "$cc" >/dev/null || continue
		# shellcheck disable=SC2086
		if $cc $cflags -I"$a" -I"$root/framework" -I"$root/nic" -I"$root/protocols" \
			-c "$tmp/all.c" -o "$tmp/all.o" 2>"$tmp/cc.err"; then
			ok
		else
			ko "$cfg: generated headers do not compile with $cc"
			cat "$tmp/cc.err"
		fi
	done
done

# A config that fails leaves an existing output directory untouched.
good="$tmp/a-baseline"
if [ -d "$good" ]; then
	before=$(cd "$good" && find . -type f -exec cksum {} + | sort)
	mkdir -p "$tmp/bad/configs"
	printf 'return { extends = "baseline", mtu = 9000 }\n' >"$tmp/bad/configs/bad.lua"
	cp "$root/configs/baseline.lua" "$tmp/bad/configs/"
	if "$lua" "$gen" --configs-dir "$tmp/bad/configs" --config "$tmp/bad/configs/bad.lua" \
		--out "$good" --json "$good/config.json" 2>/dev/null; then
		ko "bad config generated"
	else
		after=$(cd "$good" && find . -type f -exec cksum {} + | sort)
		if [ "$before" = "$after" ]; then ok; else ko "failing config changed $good"; fi
	fi
fi

# The composite of a test registry (tests/gen/composite): built and run with Criterion.
comp="$here/composite"
if (cd "$comp" && "$lua" "$gen" --configs-dir configs --protocols-dir protocols \
	--config configs/case.lua --out "$tmp/comp") 2>"$tmp/comp.err"; then
	for cc in gcc clang; do
		command -v "$cc" >/dev/null || continue
		# shellcheck disable=SC2086
		if $cc $cflags -I"$tmp/comp" -I"$comp/stub" -I"$root/nic" -I"$comp/protocols" \
			"$here/test_composite.c" -o "$tmp/comp-$cc" -lcriterion 2>"$tmp/cc.err" &&
			"$tmp/comp-$cc" >"$tmp/comp.log" 2>&1; then
			ok
		else
			ko "composite ($cc): $(cat "$tmp/cc.err" "$tmp/comp.log" 2>/dev/null)"
		fi
	done
else
	ko "composite: generation failed: $(cat "$tmp/comp.err")"
fi

# The committed reference is the generated one.
"$lua" "$gen" --reference "$tmp/ref.md"
if cmp -s "$tmp/ref.md" "$root/docs/config-reference.md"; then ok; else
	ko "docs/config-reference.md is stale: run lua5.4 gen/main.lua --reference docs/config-reference.md"
fi

echo "gen: $pass passed, $fail failed"
[ "$fail" = 0 ]
