#!/bin/sh
# make bench: the speed figures of issue 4, measured on this machine in one run.
#
#   F        one clean build of each arch's largest cell (all five symbols y), summed: the
#            compile work no schedule can avoid
#   cold     the matrix without its m column (COLD_ONLY, DRM y and n: the 192 cells the speed
#            targets were set for) from an empty cache (BENCH_CACHE, emptied first)
#   profile  where the cold run's time went: configs, heavy and light kernels, the objects
#            each compiled, what Kbuild costs per kernel whatever it compiles (its make again
#            in each build directory, with nothing changed and with only the version changed),
#            and the run's CPU over the cores: the wall/F no schedule of the same work can beat
#   m column the whole matrix on that cache: what the m column adds to it
#   naive    what building every cell from clean would cost: cells x that arch's clean build
#   warm     the whole matrix again with nothing changed
#   touched  one patch of one variant edited: what is rebuilt and rebooted; once with the
#            arches built one after the other (--arch-by-arch, as before they ran at once),
#            then with another edit as the harness runs by default
#   plan     every cell of the default matrix (all trees) resolved, with no config cached;
#            three runs, and their median
#   group    one group's configs with the in-process resolver and with olddefconfig
#   verify   every entry of the warm cache checked against its manifest (verify-cache)
#   flavour  BENCH_PART=flavour: what a flavour (matrix.conf's flavour lines: debug) costs a
#            kernel: each arch's largest cell built clean and booted without and with it, on a
#            cache of its own (BENCH_TREE, default 6.1; FLAVOURS, default all declared;
#            BENCH_ARCHES, default all)
#   full     BENCH_FULL=1: the full default matrix (every tree) cold, tree by tree, each on a
#            cache of its own with its own F; the sums give the full matrix's wall/F (hours on
#            a slow machine). BENCH_FULL=only runs just this, for the trees in FULL_TREES
#            (default: all), so the parts can be measured apart and added.
# The harness prints the per-run figures itself (its "summary:" line); this script only runs it
# and does the arithmetic. Settings: TREES (default 6.1, the tree the earlier figures are of),
# VARIANTS, ARCH, BENCH_CACHE, JOBS, COLD_ONLY, BENCH_FULL, FULL_TREES; BENCH_PART=cold stops
# after F, the cold run and its profile (about an hour here, for work on the cold figure);
# BENCH_PART=verify runs only the verify figure, on BENCH_VERIFY_CACHE (default the harness's
# default cache: a real warm one), twice (the second with the files in the page cache).
set -eu
harness=${HARNESS:-build/kcmp-matrix}
if [ "${BENCH_PART:-}" = verify ]; then
	vcache=${BENCH_VERIFY_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kcmp-matrix}
	for pass in 1 2; do
		echo "cache verify ($pass):     $("$harness" verify-cache --cache "$vcache" | sed 's/^verify-cache: //')"
	done
	exit 0
fi
cache=${BENCH_CACHE:-/tmp/kcmp-matrix-bench-cache}
out=${BENCH_RESULTS:-results/bench}
trees=${TREES:-6.1}
cold_only=${COLD_ONLY-DRM=y DRM=n}
args="--trees $trees"
[ -n "${VARIANTS:-}" ] && args="$args --variants $VARIANTS"
[ -n "${ARCH:-}" ] && args="$args --arch $ARCH"
[ -n "${JOBS:-}" ] && args="$args --jobs $JOBS"

summary() { grep 'kcmp-matrix: summary:' "$1" | tail -n 1; }
field() { summary "$1" | sed -n "s/.*[ ,]$2 \([0-9.]*\).*/\1/p"; }

if [ "${BENCH_PART:-}" = flavour ]; then
	# one clean build and boot of the cell that turns everything on, per arch and flavour
	# ("plain": none); the harness's summary gives compile and boot seconds, the cache the image
	rm -rf "$cache/flavour" "$out/flavour"
	mkdir -p "$out/flavour"
	for arch in ${BENCH_ARCHES:-$(sed -n 's/^arches //p' matrix/matrix.conf)}; do
		for flavour in plain ${FLAVOURS:-$(sed -n 's/^flavour \([^ ]*\).*/\1/p' matrix/matrix.conf)}; do
			name=$arch-$flavour
			[ "$flavour" = plain ] && opt="" || opt="--flavour $flavour"
			# shellcheck disable=SC2086
			"$harness" --cache "$cache/flavour/$name" --results "$out/flavour/$name" \
				--trees "${BENCH_TREE:-6.1}" --variants v3 --arch "$arch" $opt \
				--only EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y \
				>"$out/flavour/$name.table" 2>"$out/flavour/$name.log" || true
			log=$out/flavour/$name.log
			image=$(find "$cache/flavour/$name/kernels" -name image -type f | head -n 1)
			echo "flavour $arch $flavour: $(tail -n 1 "$out/flavour/$name.table"); clean build $(field "$log" compile) s, boot $(field "$log" boot) s, CPU $(field "$log" CPU) s, image $(($(stat -c %s "$image" 2>/dev/null || echo 0) / 1024)) KiB"
		done
	done
	exit 0
fi

# awk: seconds of a log line's [hh:mm:ss] stamp, for profile and overlap. The stamps are time of
# day: one earlier than the last is the next day (a run past midnight).
log_seconds='
	function secs(t,  s) {
		split(substr(t, 2, 8), h, ":"); s = h[1] * 3600 + h[2] * 60 + h[3] + day
		if (s < last) { day += 86400; s += 86400 }
		last = s; return s
	}'

# A kernel build of this many seconds or more is heavy (profile, objects_compiled).
heavy_seconds=30

# Where a cold run's wall time goes, from its timestamped log: the config phase of each
# (variant, arch) group (base config + every cell's olddefconfig), and the kernel builds split
# into those that compile much of the tree (30 s or more: the first build of an arch, or a
# symbol tested in widely included headers changed) and the incremental rest.
profile() {
	awk -v heavy_seconds="$heavy_seconds" "$log_seconds"'
	/^\[[0-9][0-9]:/ { now = secs($1); if (cfg) { cfgs += now - cfg; cfg = 0 } }
	/: base config and [0-9]+ cell configs/ || /: the configs of [0-9]+ variant and arch pairs/ { cfg = now }
	/ build [0-9.]+s / && !/ build cached / {
		match($0, / build [0-9.]+s /); b = substr($0, RSTART + 7, RLENGTH - 9) + 0
		if (b >= heavy_seconds) { heavy++; heavy_s += b } else if (b > 0) { light++; light_s += b }
	}
	END {
		printf "profile configs s:    %d\n", cfgs
		printf "profile heavy builds: %d kernels, %.1f s (%d s or more each)\n", heavy, heavy_s, heavy_seconds
		printf "profile light builds: %d kernels, %.1f s (%.1f s each)\n", light, light_s, light ? light_s / light : 0
	}' "$1"
}

# How many objects the cold run's kernels compiled, heavy (30 s or more) and light, from each
# kernel's whole build log in the cache (read right after the cold run: later runs rebuild some
# of the same kernels). A light kernel that compiles a handful of objects still pays Kbuild's
# walk of the whole tree and the link (kbuild_per_kernel).
objects_compiled() {
	awk -F '\t' 'NR > 1 && $NF != "-" { print $1, $2, $3, $4, $NF }' "$out/cold/matrix.tsv" |
	awk -v heavy_seconds="$heavy_seconds" '
	NR == FNR { tag[$1 " " $2 " " $3 " " $4] = $5; next }
	/ build [0-9.]+s / && !/ build cached / && match($0, /\] [^ ]+ +[^ ]+ +[^ ]+ [^ ]+ +build /) {
		split(substr($0, RSTART + 2, RLENGTH - 8), w, " ")
		match($0, / build [0-9.]+s /); b = substr($0, RSTART + 7, RLENGTH - 9) + 0
		key = w[1] " " w[2] " " w[3] " " w[4]
		if (b > 0 && key in tag) print (b >= heavy_seconds ? "heavy" : "light"), w[3], w[2], tag[key]
	}' - "$out/cold.log" |
	while read -r kind variant arch tag; do
		for log in "$cache"/run/kernels/*/"$variant/$arch/$tag/build.log"; do
			echo "$kind $(grep -cE '^  CC( \[M\])? ' "$log")"
		done
	done |
	awk '{ n[$1]++; o[$1] += $2 }
	END { printf "profile objects:      heavy %d kernels compiled %d objects (%.0f each), light %d kernels %d (%.1f each)\n", n["heavy"], o["heavy"], n["heavy"] ? o["heavy"] / n["heavy"] : 0, n["light"], o["light"], n["light"] ? o["light"] / n["light"] : 0 }'
}

# What Kbuild costs per kernel whatever it compiles, in each arch's build directory as the runs
# left it: its make again with nothing changed (the walk of the tree: every directory's make,
# every object's dependencies checked), then with only the version tag changed (the walk, and
# version.o, the vmlinux link, kallsyms, the image). Wall and CPU seconds, one arch at a time,
# -j as many as cores. Sets kbuild_noop_cpu to the mean CPU of a walk over the arches.
kbuild_per_kernel() {
	line="profile Kbuild per kernel:" sum=0 n=0
	for arch in $(sed -n 's/^arches //p' matrix/matrix.conf); do
		for dir in "$cache"/run/build/*/"$arch"; do
			[ -f "$dir/.config" ] || continue
			tree=$(basename "$(dirname "$dir")")
			src=$cache/run/worktree/$tree/$arch
			# the cells' own make, as each cell's reproduce.sh writes it
			repro=$(ls "$out"/cold/cells/*/*/"$arch"/*/reproduce.sh | head -n 1)
			words=$(grep '^make .* KBUILD_BUILD_TIMESTAMP=' "$repro" | head -n 1 |
				sed 's/^make -C [^ ]* O=[^ ]* //; s/ -j[0-9]*//; s/ KBUILD_BUILD_TIMESTAMP=[^ ]*//')
			stamp=$(sed -n 's/.*kcmpm-\([^ "]*\).*/\1/p' "$dir/include/generated/utsversion.h" 2>/dev/null)
			# without the tag it was built with, "nothing changed" would change the version;
			# "version only" adds to that tag, so it changes even when this runs again
			if [ -z "$stamp" ]; then
				line="$line $arch: no kcmpm tag in $dir/include/generated/utsversion.h, not measured;"
				continue
			fi
			read -r noop_wall noop_cpu <<-EOF
			$(make_seconds "$src" "$dir" "KBUILD_BUILD_TIMESTAMP=kcmpm-$stamp $words")
			EOF
			read -r version_wall version_cpu <<-EOF
			$(make_seconds "$src" "$dir" "KBUILD_BUILD_TIMESTAMP=kcmpm-$stamp.bench $words")
			EOF
			line="$line $arch: nothing changed $noop_wall s (CPU $noop_cpu s), version only $version_wall s (CPU $version_cpu s);"
			sum=$(echo "$sum + $noop_cpu" | bc)
			n=$((n + 1))
		done
	done
	echo "${line%;}"
	kbuild_noop_cpu=$(echo "scale=2; $sum / ($n + ($n == 0))" | bc)
}

# "WALL CPU" seconds of one make in a build directory: $1 the source tree, $2 the build
# directory, $3 the rest of the make command line.
make_seconds() {
	start=$(date +%s.%N)
	# shellcheck disable=SC2086
	cpu=$(sh -c 'make -C "$1" O="$2" -j"$(nproc)" $3 >/dev/null 2>&1; times' sh "$1" "$2" "$3" |
	      tail -n 1 | awk '{ for (i = 1; i <= 2; i++) { split($i, t, "m"); s += t[1] * 60 + t[2] } } END { printf "%.1f", s }')
	echo "$(echo "scale=1; ($(date +%s.%N) - $start) / 1" | bc) $cpu"
}

# Where the cold run's time went (its log, its kernels' logs, $cold_objects), and what Kbuild
# costs per kernel in the build directories as they are now.
cold_profile() {
	echo "cold profile:"
	profile "$out/cold.log"
	echo "profile work per wall second: $(overlap "$out/cold.log") (both arches at once; 1 is one thing at a time)"
	echo "profile cores busy:   $(field "$out/cold.log" busy) of $(nproc) on average (CPU of the harness and its processes, $(field "$out/cold.log" CPU) s, per wall second)"
	echo "$cold_objects"
	kbuild_per_kernel
	cold_cpu=$(field "$out/cold.log" CPU)
	echo "profile CPU floor:    $(echo "scale=2; $cold_cpu / $(nproc) / $F" | bc) F (the cold run's CPU, $cold_cpu s, on $(nproc) cores always busy: less than this needs less work)"
	echo "profile walks alone:  $(echo "scale=2; $(field "$out/cold.log" built) * $kbuild_noop_cpu / $(nproc) / $F" | bc) F (the cold run's kernels x the CPU of a walk with nothing changed, $kbuild_noop_cpu s, on $(nproc) cores)"
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
		name=$(basename "$dir")
		# the build path (build_dirs.h) says which key it holds
		[ -f "$dir/.kcmpm-dir-key" ] && case $name in *.*) ;; *) name="$name.$(cat "$dir/.kcmpm-dir-key")" ;; esac
		line="objects per symbol:   $name: $(find "$dir" -name '*.o.cmd' | wc -l) in all"
		# MODULES is pinned in the base, not a matrix symbol: its count is what a MODULES
		# that followed the m cells would recompile at each switch
		for sym in $(sed -n 's/^symbols //p' matrix/matrix.conf) MODULES; do
			line="$line, $sym $(grep -rl --include='*.o.cmd' "include/config/$sym)" "$dir" | wc -l)"
		done
		echo "$line"
	done
}

# How much of the time both arches were at work at once: compile and boot seconds of the
# cells, summed, per wall second of the run after its configs (1: one thing at a time).
overlap() {
	awk "$log_seconds"'
	/^\[[0-9][0-9]:/ { now = secs($1); if (!first) first = now; if (cfg) { cfgs += now - cfg; cfg = 0 } }
	/: base config and [0-9]+ cell configs/ || /: the configs of [0-9]+ variant and arch pairs/ { cfg = now }
	/ build [0-9.]+s / && !/ build cached / { match($0, / build [0-9.]+s /); work += substr($0, RSTART + 7, RLENGTH - 9) }
	/ boot [0-9.]+s / && !/ boot cached / { match($0, / boot [0-9.]+s /); work += substr($0, RSTART + 6, RLENGTH - 8) }
	END { span = now - first - cfgs; printf "%.2f", (span > 0 ? work / span : 0) }' "$1"
}

# F of some trees: one clean build per tree and arch of the cell that turns everything on,
# into $out/F-<tree>-<arch>.log; prints each, sets F to the sum.
measure_F() {
	F=0
	for arch in $(sed -n 's/^arches //p' matrix/matrix.conf); do
		eval "F_$arch=0"
	done
	for tree in $(echo "$1" | tr , ' '); do
		for arch in $(sed -n 's/^arches //p' matrix/matrix.conf); do
			"$harness" --cache "$cache/F" --results "$out/F-$tree-$arch" --trees "$tree" \
				--variants v3 --arch "$arch" \
				--only EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y --force all \
				>/dev/null 2>"$out/F-$tree-$arch.log" || true
			f=$(field "$out/F-$tree-$arch.log" compile)
			echo "F $tree $arch: $f s"
			eval "sum=\$F_$arch"
			eval "F_$arch=$(echo "$sum + $f" | bc)"
			F=$(echo "$F + $f" | bc)
		done
	done
}

# touched: v1's series gets one more patch (a comment at the end of kernel/kcmp.c, saying
# $1 so that each touched run builds kernels of its own). Only v1's kernels change; each
# rebuilds incrementally in its warm build directory. $2: harness options of the run.
touched_run() {
	dir=$out/touched-patches-$1
	rm -rf "$dir"
	cp -r kernel-patch "$dir"
	{ cat "$v1_kcmp"; echo "/* kcmp-matrix bench: a touched patch, $1 */"; } > "$out/kcmp.c.$1"
	diff -u --label a/kernel/kcmp.c --label b/kernel/kcmp.c "$v1_kcmp" "$out/kcmp.c.$1" \
		> "$dir/v1/9999-bench-touch.patch" || true
	echo 9999-bench-touch.patch >> "$dir/v1/series"
	# shellcheck disable=SC2086
	"$harness" --cache "$cache/run" --results "$out/touched-$1" --patches "$dir" $args $2 \
		>"$out/touched-$1.table" 2>"$out/touched-$1.log" || true
	echo "touched v1 patch, $1: $(field "$out/touched-$1.log" built) kernels rebuilt in $(field "$out/touched-$1.log" compile) s, $(field "$out/touched-$1.log" boots) boots, wall $(field "$out/touched-$1.log" wall) s = $(echo "scale=2; $(field "$out/touched-$1.log" wall) / $F" | bc) F, work per wall second $(overlap "$out/touched-$1.log"), cores busy $(field "$out/touched-$1.log" busy)"
}

# full: the full default matrix, cold, one tree at a time. The harness runs a matrix's trees one
# after the other, and they share no kernel build (only the guest program and preflight, seconds),
# so the full matrix's wall is the sum of its trees' walls. Each tree runs on an empty cache of its
# own, beside its own F (every arch of that tree), and prints its part; the last line adds them.
full_bench() {
	full_wall=0 full_F=0
	for tree in $(echo "$1" | tr , ' '); do
		rm -rf "$cache/full-$tree"
		measure_F "$tree"
		"$harness" --cache "$cache/full-$tree" --results "$out/full-$tree" --trees "$tree" \
			>"$out/full-$tree.table" 2>"$out/full-$tree.log" || true
		w=$(field "$out/full-$tree.log" wall)
		echo "full, tree $tree:        $(tail -n 1 "$out/full-$tree.table"), $(field "$out/full-$tree.log" built) kernels, wall $w s, F $F s, wall/F $(echo "scale=2; $w / $F" | bc)"
		full_wall=$(echo "$full_wall + $w" | bc)
		full_F=$(echo "$full_F + $F" | bc)
	done
	echo "full default matrix:  trees $1, wall $full_wall s, F $full_F s (summed over trees and arches), wall/F $(echo "scale=2; $full_wall / $full_F" | bc)"
}
all_trees=$(sed -n 's/^tree \([^ ]*\).*/\1/p' matrix/matrix.conf | paste -sd, -)

if [ "${BENCH_FULL:-}" = only ]; then
	mkdir -p "$out"
	full_bench "${FULL_TREES:-$all_trees}"
	exit 0
fi

rm -rf "$cache" "$out"
mkdir -p "$out"

measure_F "$trees"

# cold: the matrix without its m column, empty cache
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/cold" $args ${cold_only:+--only "$cold_only"} \
	>"$out/cold.table" 2>"$out/cold.log" || true
cold=$(field "$out/cold.log" wall)
echo "cold:                 $(tail -n 1 "$out/cold.table")"
echo "cold wall/F:          $(echo "scale=2; $cold / $F" | bc) ($(field "$out/cold.log" cells) cells, $(field "$out/cold.log" built) kernels, wall $cold s, compile $(field "$out/cold.log" compile) s, boot $(field "$out/cold.log" boot) s)"
cold_objects=$(objects_compiled)
if [ "${BENCH_PART:-}" = cold ]; then
	cold_profile
	exit 0
fi

# the m column: the whole matrix on the same cache
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/whole" $args >"$out/whole.table" 2>"$out/whole.log" || true
whole=$(field "$out/whole.log" wall)
echo "m column added:       $(field "$out/whole.log" built) kernels, compile $(field "$out/whole.log" compile) s, $(field "$out/whole.log" boots) boots, wall $whole s; the whole matrix in two steps: $(echo "$cold + $whole" | bc) s = $(echo "scale=2; ($cold + $whole) / $F" | bc) F"

# warm: again, nothing changed
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$harness" --cache "$cache/run" --results "$out/warm" $args >"$out/warm.table" 2>"$out/warm.log" || true
end=$(date +%s.%N)
warm=$(echo "$end - $start" | bc)

# v1's kcmp.c as its series makes it (the variant tree holds the last run's series: after a
# touched run, the touched one)
v1_kcmp=$out/kcmp.c.v1
cp "$(ls -d "$cache"/run/trees/*/v1)/kernel/kcmp.c" "$v1_kcmp"
touched_run arch-by-arch --arch-by-arch
touched_run both-at-once ""

# plan: every cell of the default matrix (all trees) resolved and judged at the config layer,
# nothing of it cached but the unpacked and patched trees (made first, untimed, for a single
# combination of one arch; the 6.1 tree is the cold run's). Three times, each on a cache of its
# own: the same work has taken from 29 to 43 s here within an hour, and a run is half a minute,
# so the median of three says more than one run.
mkdir -p "$cache/plan-setup"
cp -al "$cache/run/src" "$cache/plan-setup/"
"$harness" --cache "$cache/plan-setup" --results "$out/plan-setup" --config-only --arch x86_64 \
	--only EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y >/dev/null 2>"$out/plan-setup.log" || true
plan_walls=""
for i in 1 2 3; do
	rm -rf "$cache/plan"
	mkdir -p "$cache/plan"
	cp -al "$cache/plan-setup/src" "$cache/plan-setup/trees" "$cache/plan/"
	"$harness" --cache "$cache/plan" --results "$out/plan-$i" --config-only \
		>"$out/plan-$i.table" 2>"$out/plan-$i.log" || true
	plan_walls="$plan_walls $(field "$out/plan-$i.log" wall)"
done
plan_median=$(echo "$plan_walls" | tr ' ' '\n' | grep . | sort -n | sed -n 2p)
plan_same=$(cmp -s "$out/plan-1.table" "$out/plan-2.table" &&
	    cmp -s "$out/plan-1.table" "$out/plan-3.table" && echo yes || echo NO)

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
	# matrix.tsv's second column is the arch (the first is the tree)
	n=$(awk -F '\t' -v arch="$arch" 'NR > 1 && $2 == arch' "$out/cold/matrix.tsv" | wc -l)
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
echo "warm rerun seconds:   $warm (harness $(field "$out/warm.log" wall) s, $(field "$out/warm.log" cells) cells)"
echo "warm kernels built:   $(field "$out/warm.log" built)"
echo "warm boots:           $(field "$out/warm.log" boots)"
echo "same table warm/whole: $(cmp -s "$out/whole.table" "$out/warm.table" && echo yes || echo NO)"
echo "same table touched:   $(cmp -s "$out/touched-arch-by-arch.table" "$out/touched-both-at-once.table" && cmp -s "$out/warm.table" "$out/touched-both-at-once.table" && echo yes || echo NO)"
echo "plan, cold configs:   $(tail -n 1 "$out/plan-1.table"), wall $plan_median s (median of 3 runs:$plan_walls s; same table each run: $plan_same)"
slow=$(field "$out/group-slow.log" wall)
fast=$(field "$out/group-fast.log" wall)
echo "one group's configs:  6.1 v3 x86_64, $(tail -n 1 "$out/group-fast.table" | cut -d: -f1): olddefconfig $slow s, in process $fast s, ratio $(echo "scale=3; $fast / $slow" | bc), same configs: $same_configs"
cold_profile
m_column "$out/whole.log"
dependents
echo "peak harness RSS KiB: $(field "$out/cold.log" RSS) cold, $(field "$out/whole.log" RSS) whole, $(field "$out/warm.log" RSS) warm"
echo "cache size MiB:       $(du -sm "$cache/run" | cut -f1)"
# what checking every entry of the warm cache costs (what a warm run spends on its manifests)
echo "cache verify:         $("$harness" verify-cache --cache "$cache/run" | sed 's/^verify-cache: //')"

if [ -n "${BENCH_FULL:-}" ]; then
	full_bench "${FULL_TREES:-$all_trees}"
fi
