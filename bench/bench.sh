#!/bin/sh
# make bench: the speed figures of issue 4, measured on this machine in one run.
#
#   cold     the matrix from an empty cache (BENCH_CACHE, emptied first)
#   F        one clean build of each arch's largest cell (all five symbols y), summed: the
#            compile work no schedule can avoid
#   naive    what building every cell from clean would cost: cells x that arch's clean build
#   warm     the same matrix again with nothing changed
#   touched  one patch of one variant edited: what is rebuilt and rebooted
#   plan     every cell of the default matrix (all trees) resolved, with no config cached
#   group    one group's configs with the in-process resolver and with olddefconfig
# The harness prints the per-run figures itself (its "summary:" line); this script only runs it
# and does the arithmetic. Settings: TREES (default 6.1, the tree the earlier figures are of),
# VARIANTS, ARCH, BENCH_CACHE, JOBS.
set -eu
harness=${HARNESS:-build/kcmp-matrix}
cache=${BENCH_CACHE:-/tmp/kcmp-matrix-bench-cache}
out=${BENCH_RESULTS:-results/bench}
trees=${TREES:-6.1}
args="--trees $trees"
[ -n "${VARIANTS:-}" ] && args="$args --variants $VARIANTS"
[ -n "${ARCH:-}" ] && args="$args --arch $ARCH"
[ -n "${JOBS:-}" ] && args="$args --jobs $JOBS"

summary() { grep 'kcmp-matrix: summary:' "$1" | tail -n 1; }
field() { summary "$1" | sed -n "s/.*[ ,]$2 \([0-9.]*\).*/\1/p"; }

# Where a cold run's wall time goes, from its timestamped log: the config phase of each
# (variant, arch) group (base config + every cell's olddefconfig), and the kernel builds split
# into those that compile much of the tree (30 s or more: the first build of an arch, or a
# symbol tested in widely included headers changed) and the incremental rest.
profile() {
	awk '
	function secs(t) { split(substr(t, 2, 8), h, ":"); return h[1] * 3600 + h[2] * 60 + h[3] }
	/^\[[0-9][0-9]:/ { now = secs($1); if (cfg) { cfgs += now - cfg; cfg = 0 } }
	/: base config and [0-9]+ cell configs/ || /: the configs of [0-9]+ variant and arch pairs/ { cfg = now }
	/ build [0-9.]+s / && !/ build cached / {
		match($0, / build [0-9.]+s /); b = substr($0, RSTART + 7, RLENGTH - 9) + 0
		if (b >= 30) { heavy++; heavy_s += b } else if (b > 0) { light++; light_s += b }
	}
	END {
		printf "profile configs s:    %d\n", cfgs
		printf "profile heavy builds: %d kernels, %.1f s (30 s or more each)\n", heavy, heavy_s
		printf "profile light builds: %d kernels, %.1f s (%.1f s each)\n", light, light_s, light ? light_s / light : 0
	}' "$1"
}

# What the m column costs in the cold run: its cells (requested m; every m a matrix symbol
# can take), the kernels built for them, and their compile and boot seconds, from the harness's
# per-cell log lines.
m_column() {
	awk '
	/ \[ *[0-9]+\/[0-9]+\] / && /=m[,  ]/ {
		cells++
		if (match($0, / build [0-9.]+s /)) { b = substr($0, RSTART + 7, RLENGTH - 9) + 0; if (b > 0) { built++; bs += b } }
		if (match($0, / boot [0-9.]+s /)) { bs_boot += substr($0, RSTART + 6, RLENGTH - 8) + 0 }
	}
	END { printf "m column:             %d cells, %d kernels built, %.1f s compile, %.1f s boot\n", cells, built, bs, bs_boot }' "$1"
}

# How many of an arch's objects Kbuild recompiles when each matrix symbol changes: those whose
# dependency file names include/config/<SYMBOL>.
dependents() {
	for dir in "$cache"/run/build/*/*; do
		[ -d "$dir" ] || continue
		line="objects per symbol:   $(basename "$dir"): $(find "$dir" -name '*.o.cmd' | wc -l) in all"
		# MODULES is pinned in the base, not a matrix symbol: its count is what a MODULES
		# that followed the m cells would recompile at each switch
		for sym in $(sed -n 's/^symbols //p' matrix/matrix.conf) MODULES; do
			line="$line, $sym $(grep -rl --include='*.o.cmd' "include/config/$sym)" "$dir" | wc -l)"
		done
		echo "$line"
	done
}

rm -rf "$cache" "$out"
mkdir -p "$out"

# F: one clean build per arch of the cell that turns everything on.
F=0
for arch in $(sed -n 's/^arches //p' matrix/matrix.conf); do
	# shellcheck disable=SC2086
	"$harness" --cache "$cache/F" --results "$out/F-$arch" --trees "$trees" --variants v3 --arch "$arch" \
		--only EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y --force all \
		>/dev/null 2>"$out/F-$arch.log" || true
	f=$(field "$out/F-$arch.log" compile)
	echo "F $arch: $f s"
	eval "F_$arch=$f"
	F=$(echo "$F + $f" | bc)
done

# cold: the whole matrix, empty cache
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/cold" $args >"$out/cold.table" 2>"$out/cold.log" || true
cold=$(field "$out/cold.log" wall)

# warm: again, nothing changed
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/warm" $args >"$out/warm.table" 2>"$out/warm.log" || true
end=$(date +%s.%N)
warm=$(echo "$end - $start" | bc)

# touched: v1's series gets one more patch (a comment at the end of kernel/kcmp.c). Only v1's
# kernels change; each rebuilds incrementally in the warm build directory.
touched=$out/touched-patches
rm -rf "$touched"
cp -r kernel-patch "$touched"
v1_kcmp=$(ls -d "$cache"/run/trees/*/v1)/kernel/kcmp.c
{ cat "$v1_kcmp"; echo "/* kcmp-matrix bench: a touched patch */"; } > "$out/kcmp.c.touched"
diff -u --label a/kernel/kcmp.c --label b/kernel/kcmp.c "$v1_kcmp" "$out/kcmp.c.touched" \
	> "$touched/v1/9999-bench-touch.patch" || true
echo 9999-bench-touch.patch >> "$touched/v1/series"
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/touched" --patches "$touched" $args \
	>"$out/touched.table" 2>"$out/touched.log" || true

# plan: every cell of the default matrix (all trees) resolved and judged at the config layer,
# nothing of it cached but the unpacked and patched trees (made first, untimed, for a single
# combination of one arch; the 6.1 tree is the cold run's).
mkdir -p "$cache/plan-setup" "$cache/plan"
cp -al "$cache/run/src" "$cache/plan-setup/"
"$harness" --cache "$cache/plan-setup" --results "$out/plan-setup" --config-only --arch x86_64 \
	--only EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y >/dev/null 2>"$out/plan-setup.log" || true
cp -al "$cache/plan-setup/src" "$cache/plan-setup/trees" "$cache/plan/"
"$harness" --cache "$cache/plan" --results "$out/plan" --config-only \
	>"$out/plan.table" 2>"$out/plan.log" || true

# the config phase of one group both ways: the resolver against one make olddefconfig per
# cell (the slow path it replaced, and the reference it must equal)
one_group="--config-only --trees 6.1 --variants v3 --arch x86_64 --force all"
# shellcheck disable=SC2086
"$harness" --cache "$cache/plan" --results "$out/group-fast" $one_group \
	>"$out/group-fast.table" 2>"$out/group-fast.log" || true
# shellcheck disable=SC2086
"$harness" --cache "$cache/plan" --results "$out/group-slow" $one_group --resolve-with olddefconfig \
	>"$out/group-slow.table" 2>"$out/group-slow.log" || true
same_configs=yes
for c in "$out"/group-slow/cells/*/*/*/*/config; do
	cmp -s "$c" "$out/group-fast/${c#"$out"/group-slow/}" || same_configs=NO
done

# naive: every cell a clean build of its arch, plus its boot
naive=0
for arch in $(sed -n 's/^arches //p' matrix/matrix.conf); do
	n=$(grep -c "^$arch	" "$out/cold/matrix.tsv" || true)
	eval "f=\$F_$arch"
	naive=$(echo "$naive + $n * $f" | bc)
done

echo "cells:                $(field "$out/cold.log" cells)"
echo "distinct kernels built: $(field "$out/cold.log" built)"
echo "synced in process:    $(field "$out/cold.log" process) of those builds (the rest by Kbuild's syncconfig)"
echo "compile seconds:      $(field "$out/cold.log" compile)"
echo "boot seconds:         $(field "$out/cold.log" boot)"
echo "wall seconds (cold):  $cold"
echo "F seconds:            $F"
echo "wall/F:               $(echo "scale=2; $cold / $F" | bc)"
echo "naive estimate s:     $naive"
echo "naive/wall:           $(echo "scale=1; $naive / $cold" | bc)"
echo "warm rerun seconds:   $warm"
echo "warm kernels built:   $(field "$out/warm.log" built)"
echo "warm boots:           $(field "$out/warm.log" boots)"
echo "same table warm/cold: $(cmp -s "$out/cold.table" "$out/warm.table" && echo yes || echo NO)"
echo "touched v1 patch:     $(field "$out/touched.log" built) kernels rebuilt in $(field "$out/touched.log" compile) s, $(field "$out/touched.log" boots) boots, wall $(field "$out/touched.log" wall) s"
echo "touched wall/F:       $(echo "scale=2; $(field "$out/touched.log" wall) / $F" | bc)"
echo "plan, cold configs:   $(tail -n 1 "$out/plan.table"), wall $(field "$out/plan.log" wall) s"
slow=$(field "$out/group-slow.log" wall)
fast=$(field "$out/group-fast.log" wall)
echo "one group's configs:  6.1 v3 x86_64, $(tail -n 1 "$out/group-fast.table" | cut -d: -f1): olddefconfig $slow s, in process $fast s, ratio $(echo "scale=3; $fast / $slow" | bc), same configs: $same_configs"
profile "$out/cold.log"
m_column "$out/cold.log"
dependents
echo "peak harness RSS KiB: $(field "$out/cold.log" RSS)"
echo "cache size MiB:       $(du -sm "$cache/run" | cut -f1)"
