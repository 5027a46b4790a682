/* kcmp-matrix: build, boot and judge every cell of the Kconfig matrix.
 *
 * Pipeline (one file each): matrix (what to run) -> plan (cells and predictions from rules) ->
 * build (base config, resolved configs, kernels) -> guest + initramfs -> boot (QEMU) ->
 * ktap (parse the console) -> judge (verdicts) -> report (tables). run.c strings them together;
 * spawn.c is the only place that starts processes.
 *
 * Exit status: 0 every cell passed, 1 some cell did not, 2 the harness could not run.
 */
#define _GNU_SOURCE
#include "matrix.h"
#include "plan.h"
#include "report.h"
#include "run.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
	"usage: kcmp-matrix [options]\n"
	"\n"
	"Builds a kernel for every combination of the matrix symbols on every arch and variant,\n"
	"boots each in QEMU with a test /init, and judges kcmp() against the Kconfig rules.\n"
	"\n"
	"  --arch LIST         arches to run (comma-separated; default: all in matrix.conf)\n"
	"  --variants LIST     variants to run (default: all)\n"
	"  --only PATTERN      combinations matching SYM=y|n[,SYM=y|n...] only\n"
	"  --ksrc DIR          build this kernel tree instead of the unpacked tarball\n"
	"  --tarball FILE      kernel tarball (default /usr/src/linux-source-6.1.tar.xz)\n"
	"  --cache DIR         cache (default $XDG_CACHE_HOME/kcmp-matrix or ~/.cache/kcmp-matrix)\n"
	"  --results DIR       where results go (default results)\n"
	"  --matrix DIR        matrix description (default matrix)\n"
	"  --patches DIR       variants' patch series (default kernel-patch)\n"
	"  --guest FILE        guest test source (default guest-tests/kcmp_init.c)\n"
	"  -j, --jobs N        make -j (default: number of CPUs)\n"
	"  --boot-timeout S    seconds per boot, overriding matrix/arches.conf\n"
	"  --make PROG         make program (default make)\n"
	"  --qemu PROG         QEMU program for every arch (for tests)\n"
	"  --force WHAT        boot: boot every kernel again; all: start cold, reuse nothing\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status: 0 all cells PASS, 1 some cell did not, 2 the harness could not run.\n";

struct options {
	struct run_opts run;
	struct plan_filter filter;
	const char *ksrc;
	const char *tarball;
};

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

static void free_vector(char **v)
{
	for (int i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static char *default_cache(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");

	if (xdg && *xdg)
		return xasprintf("%s/kcmp-matrix", xdg);
	return xasprintf("%s/.cache/kcmp-matrix", home && *home ? home : "/tmp");
}

static double positive_number(const char *opt, const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || v <= 0)
		die("%s: '%s' is not a positive number", opt, s);
	return v;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	enum { O_ARCH = 256, O_VARIANTS, O_ONLY, O_KSRC, O_TARBALL, O_CACHE, O_RESULTS, O_MATRIX,
	       O_PATCHES, O_GUEST, O_TIMEOUT, O_MAKE, O_QEMU, O_FORCE };
	static const struct option longopts[] = {
		{ "arch", required_argument, NULL, O_ARCH },
		{ "variants", required_argument, NULL, O_VARIANTS },
		{ "only", required_argument, NULL, O_ONLY },
		{ "ksrc", required_argument, NULL, O_KSRC },
		{ "tarball", required_argument, NULL, O_TARBALL },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "results", required_argument, NULL, O_RESULTS },
		{ "matrix", required_argument, NULL, O_MATRIX },
		{ "patches", required_argument, NULL, O_PATCHES },
		{ "guest", required_argument, NULL, O_GUEST },
		{ "jobs", required_argument, NULL, 'j' },
		{ "boot-timeout", required_argument, NULL, O_TIMEOUT },
		{ "make", required_argument, NULL, O_MAKE },
		{ "qemu", required_argument, NULL, O_QEMU },
		{ "force", required_argument, NULL, O_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "j:h", longopts, NULL)) != -1) {
		switch (c) {
		case O_ARCH: o->filter.arches = split_commas(optarg); break;
		case O_VARIANTS: o->filter.variants = split_commas(optarg); break;
		case O_ONLY: o->filter.only = optarg; break;
		case O_KSRC: o->ksrc = *optarg ? optarg : NULL; break;
		case O_TARBALL: o->tarball = optarg; break;
		case O_CACHE: o->run.cache_dir = optarg; break;
		case O_RESULTS: o->run.results_dir = optarg; break;
		case O_MATRIX: o->run.matrix_dir = optarg; break;
		case O_PATCHES: o->run.patch_dir = optarg; break;
		case O_GUEST: o->run.guest_src = optarg; break;
		case 'j': o->run.jobs = (int)positive_number("--jobs", optarg); break;
		case O_TIMEOUT: o->run.boot_timeout = positive_number("--boot-timeout", optarg); break;
		case O_MAKE: o->run.make = optarg; break;
		case O_QEMU: o->run.qemu = optarg; break;
		case O_FORCE:
			if (!strcmp(optarg, "boot"))
				o->run.force = FORCE_BOOT;
			else if (!strcmp(optarg, "all"))
				o->run.force = FORCE_ALL;
			else if (*optarg)
				die("--force: '%s' is neither 'boot' nor 'all'", optarg);
			break;
		case 'h': fputs(usage, stdout); exit(0);
		default: fputs(usage, stderr); exit(EXIT_HARNESS);
		}
	}
	if (optind < argc)
		die("unexpected argument '%s'; see --help", argv[optind]);
}

/* A make or kernel variable in our environment (say from `make matrix ARCH=arm64`) must not
 * leak into the kernel builds, which get every setting on their command line. */
static void clean_environment(void)
{
	static const char *const vars[] = { "MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES",
					    "ARCH", "CROSS_COMPILE", "KBUILD_OUTPUT", "O", "CC",
					    "KCONFIG_CONFIG", "KCONFIG_ALLCONFIG", "KBUILD_BUILD_TIMESTAMP" };

	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		unsetenv(vars[i]);
}

/* One run at a time per directory: build directories and result files cannot be shared. A
 * second run waits for the first. The lock is released when the process ends. */
static void lock_dir(const char *dir)
{
	char *path = xasprintf("%s/.lock", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0)
		die("cannot open lock file '%s':", path);
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		warn("another kcmp-matrix run is using '%s'; waiting for it to finish", dir);
		if (flock(fd, LOCK_EX))
			die("cannot lock '%s':", path);
	}
	free(path);	/* fd stays open: it holds the lock */
}

/* One line of figures for benchmarks and logs. */
static void print_summary(const struct plan *p, const struct run_info *ri)
{
	int built = 0, boots = 0;
	double compile = 0, boot = 0;

	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];

		built += c->build_seconds > 0;
		compile += c->build_seconds;
		boots += c->boot_seconds > 0;
		boot += c->boot_seconds;
	}
	fprintf(stderr, "kcmp-matrix: summary: cells %d, kernels built %d, compile %.1f s, boots %d, "
		"boot %.1f s, wall %.1f s, peak RSS %ld KiB\n", p->ncell, built, compile, boots, boot,
		ri->seconds, ri->max_rss_kib);
}

static void write_results(const struct options *o, const struct matrix *m, const struct plan *p,
			  const struct tree *t, double seconds, const char *table)
{
	struct rusage ru;
	struct run_info ri = { .kernel_version = t->version, .tree_path = t->path,
			       .seconds = seconds };

	if (getrusage(RUSAGE_SELF, &ru) == 0)
		ri.max_rss_kib = ru.ru_maxrss;
	print_summary(p, &ri);
	char *json = report_json(m, p, &ri), *tsv = report_tsv(m, p);
	char *paths[3] = { xasprintf("%s/matrix.json", o->run.results_dir),
			   xasprintf("%s/matrix.tsv", o->run.results_dir),
			   xasprintf("%s/matrix.md", o->run.results_dir) };
	const char *data[3] = { json, tsv, table };

	for (int i = 0; i < 3; i++) {
		if (write_file_atomic(paths[i], data[i], strlen(data[i])))
			die("cannot write '%s': %s", paths[i], strerror(errno));
		free(paths[i]);
	}
	free(json);
	free(tsv);
}

int main(int argc, char **argv)
{
	struct options o = { .run = { .matrix_dir = "matrix", .patch_dir = "kernel-patch",
				      .guest_src = "guest-tests/kcmp_init.c",
				      .results_dir = "results", .make = "make" },
			     .tarball = "/usr/src/linux-source-6.1.tar.xz" };
	char err[2048] = "", *cache = NULL, *table;
	struct matrix m;
	struct plan p;
	struct tree t;
	double start = now_seconds();
	int status = EXIT_ALL_PASS;

	setvbuf(stdout, NULL, _IOLBF, 0);
	setvbuf(stderr, NULL, _IOLBF, 0);
	parse_args(argc, argv, &o);
	clean_environment();
	spawn_install_signal_handlers();
	if (!o.run.cache_dir)
		o.run.cache_dir = cache = default_cache();
	if (!o.run.jobs)
		o.run.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (o.run.jobs < 1)
		o.run.jobs = 1;
	if (matrix_load(o.run.matrix_dir, o.run.patch_dir, &m, err, sizeof(err)))
		die("%s", err);
	if (plan_make(&m, &o.filter, &p, err, sizeof(err)))
		die("%s", err);
	if (mkdir_p(o.run.results_dir) || mkdir_p(o.run.cache_dir))
		die("cannot create '%s' or '%s':", o.run.results_dir, o.run.cache_dir);
	lock_dir(o.run.cache_dir);
	lock_dir(o.run.results_dir);
	if (o.ksrc ? tree_from_path(o.ksrc, &t, err, sizeof(err))
		   : tree_from_tarball(o.tarball, o.run.cache_dir, &t, err, sizeof(err)))
		die("%s", err);
	fprintf(stderr, "kcmp-matrix: %d cells, kernel %s from %s, cache %s\n", p.ncell, t.version,
		t.path, o.run.cache_dir);
	if (run_plan(&o.run, &m, &t, &p, err, sizeof(err)))
		die("%s", err);
	table = report_table(&m, &p);
	fputs(table, stdout);
	write_results(&o, &m, &p, &t, now_seconds() - start, table);
	for (int i = 0; i < p.ncell; i++)
		if (!cell_ok(&p.cell[i]))
			status = EXIT_SOME_FAIL;
	free(table);
	free_vector(o.filter.arches);
	free_vector(o.filter.variants);
	plan_free(&p);
	tree_free(&t);
	matrix_free(&m);
	free(cache);
	return status;
}
