/* options: see options.h. */
#define _GNU_SOURCE
#include "options.h"
#include "spawn.h"
#include "report.h"
#include "util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
	"usage: kcmp-matrix [options]                  run the matrix\n"
	"       kcmp-matrix merge [options] DIR...     merge shards' results dirs into --results\n"
	"       kcmp-matrix diff [options] OLD [NEW]   what changed between two matrix.json files\n"
	"                                              (NEW defaults to RESULTS/matrix.json)\n"
	"       kcmp-matrix verify-cache [--cache DIR] check every cache entry against its manifest\n"
	"                                              (a corrupt one is thrown away); exit 1 if any\n"
	"       kcmp-matrix prune-cache [--cache DIR] [--unused-days N]\n"
	"                                              remove the cache entries no run has used for\n"
	"                                              N days (default 30)\n"
	"\n"
	"Builds a kernel for every combination of the matrix symbols on every arch and variant,\n"
	"boots each in QEMU with a test /init, and judges what it observes against the Kconfig\n"
	"rules.\n"
	"Results: RESULTS/matrix.{md,json,tsv,ktap}, junit.xml, index.html, cells/.\n"
	"\n"
	"  --arch LIST         arches to run (comma-separated; default: matrix.conf's arches line;\n"
	"                      all: its extra-arches too)\n"
	"  --variants LIST     variants to run (default: all)\n"
	"  --only PATTERN      combinations matching SYM=y|m|n|unset[,SYM=...] only (a SYM=unset\n"
	"                      term makes SYM take unset in this run)\n"
	"  --unset LIST        symbols that also take the value unset (no line in the cell's\n"
	"                      fragment: Kconfig's default decides): all, none, or names joined\n"
	"                      by commas (default: matrix.conf's unset line)\n"
	"  --trees LIST        kernel trees to run, by matrix.conf's names (default: all of them;\n"
	"                      with --ksrc: ksrc alone)\n"
	"  --ksrc DIR          also build this kernel tree, as the tree named ksrc\n"
	"  --cache DIR         cache (default $XDG_CACHE_HOME/kcmp-matrix or ~/.cache/kcmp-matrix)\n"
	"  --results DIR       where results go (default results)\n"
	"  --matrix DIR        the question's folder: matrix.conf and what it names (default\n"
	"                      matrix, the kcmp question; make QUESTION=name: questions/name)\n"
	"  --patches DIR       variants' patch series (default: matrix.conf's patches)\n"
	"  --guest FILE        guest test source (default: matrix.conf's guest)\n"
	"  --flavour NAME      add matrix.conf's flavour NAME's base fragments to every cell\n"
	"                      (debug: the kernel's lock, list, UB and hang detectors); its\n"
	"                      kernels build in directories of their own\n"
	"  --resolve-with HOW  in-process: resolve each group's configs in one process with the\n"
	"                      tree's own Kconfig code (default); olddefconfig: one make\n"
	"                      olddefconfig per config (slow; the reference it must equal)\n"
	"  -j, --jobs N        compile jobs (and boots) at once, shared by both arches' builds\n"
	"                      through one make jobserver (default: number of CPUs)\n"
	"  --arch-by-arch      build one arch's kernels after the other's, not both at once\n"
	"  --boot-timeout S    seconds per boot, overriding matrix/arches.conf\n"
	"  --build-timeout S   seconds per kernel build, overriding matrix/arches.conf\n"
	"  --boot-retries N    boot again after a timeout with no crash or warning in the console,\n"
	"                      up to N times (default 1; 0: never); a cell that passes on a retry\n"
	"                      is PASS, marked FLAKY\n"
	"  --make PROG         make program (default make)\n"
	"  --cc-wrapper CMD    compile through CMD: ccache, distcc (make CC=\"CMD <cross>gcc\");\n"
	"                      kernels are keyed by the compiler, not the wrapper\n"
	"  --qemu PROG         QEMU program for every arch (for tests)\n"
	"  --force WHAT        boot: boot every kernel again; all: start cold, reuse nothing\n"
	"  --shard K/N         run only the K-th of N equal slices of the cells (for CI runners)\n"
	"  --previous FILE     an earlier run's matrix.json: index.html leads with the changes\n"
	"  --config-only       resolve every cell's config and judge the config layer only:\n"
	"                      no kernel built, no guest booted (make plan); verdict CONFIG_OK\n"
	"  --single            the filters must select exactly one cell (make cell)\n"
	"  --shell             with --single: then boot that cell's kernel with a busybox shell\n"
	"  --busybox FILE      static busybox for --shell (default /bin/busybox, native arch)\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 all cells PASS or XFAIL (diff: no new failures), 1 some cell did not\n"
	"(diff: new failures), 2 the harness could not run (bad input, missing tool).\n";

static char **split_commas(const char *s)
{
	char *copy = xstrdup(s), *save = NULL;
	char **v = xcalloc(strlen(s) + 2, sizeof(*v));
	int n = 0;

	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save))
		v[n++] = xstrdup(w);
	free(copy);
	return v;
}

char *options_default_cache(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/kcmp-matrix", xdg);
	/* no fallback to /tmp/.cache: a name any user could have made first */
	return home && *home ? xasprintf("%s/.cache/kcmp-matrix", home) : NULL;
}

/* Timeouts: a finite number of seconds above zero ("nan" would turn the limit off). */
static double positive_number(const char *opt, const char *s)
{
	double v;

	if (arches_timeout_seconds(s, &v))
		die("%s: '%s' is not a number of seconds from 0 to %d (a day)", opt, s,
		    MAX_TIMEOUT_SECONDS);
	return v;
}

/* Is prog a program exec can run: a path to an executable file, or a name of one in PATH? */
static int executable(const char *prog)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	int found = 0;
	struct stat st;

	if (strchr(prog, '/'))
		return stat(prog, &st) == 0 && S_ISREG(st.st_mode) && access(prog, X_OK) == 0;
	copy = xstrdup(path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = xasprintf("%s/%s", *d ? d : ".", prog);

		found = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
		free(full);
	}
	free(copy);
	return found;
}

/* An option's whole number from lo to hi ("0.5" and "1e12" are not). */
static int whole_number(const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long n = strtol(s, &end, 10);

	if (*end || end == s || n < lo || n > hi)
		die("%s: '%s' is not a whole number from %ld to %ld", opt, s, lo, hi);
	return (int)n;
}

static void parse_shard(const char *s, struct options *o)
{
	char extra;

	if (*s && (sscanf(s, "%d/%d%c", &o->shard_k, &o->shard_n, &extra) != 2 || o->shard_n < 1 ||
		   o->shard_k < 1 || o->shard_k > o->shard_n))
		die("--shard: '%s' is not K/N with 1 <= K <= N (say --shard 2/4)", s);
}

static void resolve_with(const char *how, struct run_opts *o)
{
	if (!strcmp(how, "olddefconfig"))
		o->resolver_src = NULL;
	else if (strcmp(how, "in-process"))
		die("--resolve-with: '%s' is neither 'in-process' nor 'olddefconfig'", how);
}

/* The command: what follows the options, when it names one */
static enum command take_command(struct options *o)
{
	static const char *const names[] = { [CMD_MERGE] = "merge", [CMD_DIFF] = "diff",
					     [CMD_VERIFY_CACHE] = "verify-cache",
					     [CMD_PRUNE_CACHE] = "prune-cache" };

	if (!o->args[0])
		return CMD_RUN;
	for (size_t i = 1; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(o->args[0], names[i])) {
			o->args++;
			return (enum command)i;
		}
	die("unexpected argument '%s'; see --help", o->args[0]);
}

enum { O_ARCH = 256, O_VARIANTS, O_ONLY, O_KSRC, O_TREES, O_CACHE, O_RESULTS, O_MATRIX,
       O_PATCHES, O_GUEST, O_TIMEOUT, O_BUILD_TIMEOUT, O_BOOT_RETRIES, O_MAKE, O_QEMU,
       O_FORCE, O_SHARD, O_PREVIOUS, O_SINGLE, O_SHELL, O_BUSYBOX, O_CC_WRAPPER,
       O_CONFIG_ONLY, O_RESOLVE_WITH, O_ARCH_BY_ARCH, O_UNUSED_DAYS, O_FLAVOUR, O_UNSET };
static const struct option longopts[] = {
	{ "arch", required_argument, NULL, O_ARCH },
	{ "variants", required_argument, NULL, O_VARIANTS },
	{ "only", required_argument, NULL, O_ONLY },
	{ "ksrc", required_argument, NULL, O_KSRC },
	{ "trees", required_argument, NULL, O_TREES },
	{ "cache", required_argument, NULL, O_CACHE },
	{ "results", required_argument, NULL, O_RESULTS },
	{ "matrix", required_argument, NULL, O_MATRIX },
	{ "patches", required_argument, NULL, O_PATCHES },
	{ "guest", required_argument, NULL, O_GUEST },
	{ "flavour", required_argument, NULL, O_FLAVOUR },
	{ "unset", required_argument, NULL, O_UNSET },
	{ "jobs", required_argument, NULL, 'j' },
	{ "boot-timeout", required_argument, NULL, O_TIMEOUT },
	{ "build-timeout", required_argument, NULL, O_BUILD_TIMEOUT },
	{ "boot-retries", required_argument, NULL, O_BOOT_RETRIES },
	{ "make", required_argument, NULL, O_MAKE },
	{ "qemu", required_argument, NULL, O_QEMU },
	{ "force", required_argument, NULL, O_FORCE },
	{ "shard", required_argument, NULL, O_SHARD },
	{ "previous", required_argument, NULL, O_PREVIOUS },
	{ "single", no_argument, NULL, O_SINGLE },
	{ "shell", no_argument, NULL, O_SHELL },
	{ "busybox", required_argument, NULL, O_BUSYBOX },
	{ "cc-wrapper", required_argument, NULL, O_CC_WRAPPER },
	{ "config-only", no_argument, NULL, O_CONFIG_ONLY },
	{ "resolve-with", required_argument, NULL, O_RESOLVE_WITH },
	{ "arch-by-arch", no_argument, NULL, O_ARCH_BY_ARCH },
	{ "unused-days", required_argument, NULL, O_UNUSED_DAYS },
	{ "help", no_argument, NULL, 'h' },
	{ 0 },
};

/* One option getopt_long found (c, with optarg), into o. */
static void take_option(int c, struct options *o, char **argv)
{
	switch (c) {
	case O_ARCH: o->filter.arches = split_commas(optarg); break;
	case O_VARIANTS: o->filter.variants = split_commas(optarg); break;
	case O_ONLY: o->filter.only = optarg; break;
	case O_KSRC: o->ksrc = *optarg ? optarg : NULL; break;
	case O_TREES: o->filter.trees = *optarg ? split_commas(optarg) : NULL; break;
	case O_CACHE: o->run.cache_dir = optarg; break;
	case O_RESULTS: o->run.results_dir = optarg; break;
	case O_MATRIX: o->run.matrix_dir = optarg; break;
	case O_PATCHES: o->run.patch_dir = optarg; break;
	case O_GUEST: o->run.guest_src = optarg; break;
	case O_FLAVOUR: o->flavour = *optarg ? optarg : NULL; break;
	case O_UNSET: o->unset = *optarg ? optarg : NULL; break;
	case 'j': o->run.jobs = whole_number("--jobs", optarg, 1, SPAWN_MAX_JOBS); break;
	case O_TIMEOUT: o->run.boot_timeout = positive_number("--boot-timeout", optarg); break;
	case O_BOOT_RETRIES:
		o->run.boot_retries = whole_number("--boot-retries", optarg, 0, 10);
		break;
	case O_BUILD_TIMEOUT:
		o->run.build_timeout = positive_number("--build-timeout", optarg);
		break;
	case O_MAKE: o->run.make = optarg; break;
	case O_QEMU:
		/* it runs in place of the arch's QEMU, whose line is checked: no shell, no
		 * words, one program */
		if (!executable(optarg))
			die("--qemu: '%s' is not an executable program (a path, or a name in "
			    "PATH)", optarg);
		o->run.qemu = optarg;
		break;
	case O_FORCE:
		if (!strcmp(optarg, "boot"))
			o->run.force = FORCE_BOOT;
		else if (!strcmp(optarg, "all"))
			o->run.force = FORCE_ALL;
		else if (*optarg)
			die("--force: '%s' is neither 'boot' nor 'all'", optarg);
		break;
	case O_SHARD: parse_shard(optarg, o); break;
	case O_PREVIOUS: o->previous = *optarg ? optarg : NULL; break;
	case O_SINGLE: o->single = 1; break;
	case O_SHELL: o->shell = o->single = 1; break;
	case O_BUSYBOX: o->busybox = *optarg ? optarg : NULL; break;
	case O_CC_WRAPPER: o->run.cc_wrapper = *optarg ? optarg : NULL; break;
	case O_CONFIG_ONLY: o->run.config_only = 1; break;
	case O_RESOLVE_WITH: resolve_with(optarg, &o->run); break;
	case O_ARCH_BY_ARCH: o->run.arch_by_arch = 1; break;
	case O_UNUSED_DAYS:
		o->unused_days = whole_number("--unused-days", optarg, 0, 36500);
		break;
	case 'h': fputs(usage, stdout); exit(0);
	default:
		die("unknown option or missing value '%s'; 'kcmp-matrix --help' lists the "
		    "options", argv[optind - 1]);
	}
}

void options_parse(int argc, char **argv, struct options *o)
{
	int c;

	*o = (struct options){ .run = { .matrix_dir = "matrix",
					.resolver_src = "harness/resolver/kcmpm_resolve.c",
					.results_dir = "results", .make = "make", .boot_retries = 1 },
			       .unused_days = -1 };
	if (!report_kcidb_origin())
		die("KCIDB_ORIGIN='%s' is not a KCIDB origin (lowercase letters, digits and _)",
		    getenv("KCIDB_ORIGIN"));
	opterr = 0;	/* one line of our own instead of getopt's and the whole usage */
	while ((c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1)
		take_option(c, o, argv);
	o->args = argv + optind;
	o->command = take_command(o);
	if (o->unused_days >= 0 && o->command != CMD_PRUNE_CACHE)
		die("--unused-days is an option of 'kcmp-matrix prune-cache' only");
}
