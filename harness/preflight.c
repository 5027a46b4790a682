/* preflight: see preflight.h. */
#define _GNU_SOURCE
#include "preflight.h"
#include "syscalls.h"
#include "digest.h"
#include "cache_layout.h"
#include "boot.h"
#include "build.h"
#include "cache.h"
#include "guest.h"
#include "spawn.h"
#include "tree.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The problems found so far and the packages that would mend them. */
struct problems {
	int n;
	struct strbuf packages;		/* " pkg pkg ...", each once */
};

static void add_package(struct problems *pr, const char *pkg)
{
	char *word = xasprintf(" %s ", pkg), *have = xasprintf("%s ", pr->packages.s ? pr->packages.s
										: "");

	if (!strstr(have, word))
		sb_printf(&pr->packages, " %s", pkg);
	free(word);
	free(have);
}

/* Prints one problem line and remembers its packages (space-separated words, or NULL). */
static void problem(struct problems *pr, const char *packages, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void problem(struct problems *pr, const char *packages, const char *fmt, ...)
{
	char line[2048], *copy = xstrdup(packages ? packages : ""), *save = NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	warn("%s", line);
	pr->n++;
	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		add_package(pr, w);
	free(copy);
}

/* Is name a program we can run: a path that is executable, or found in PATH? */
static int program_found(const char *name)
{
	const char *path = getenv("PATH");
	char *copy, *save = NULL;
	int found = 0;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0;
	copy = xstrdup(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		char *p = xasprintf("%s/%s", dir, name);

		found = access(p, X_OK) == 0;
		free(p);
	}
	free(copy);
	return found;
}

/* The other trees of the run, for "TREES=6.1" in the hint to leave tree skip out; "" when
 * there are none. Caller frees. */
static char *other_trees(const struct preflight_req *r, int skip)
{
	struct strbuf sb = { 0 };

	sb_add(&sb, "", 0);
	for (int t = 0; t < r->m->ntree; t++)
		if (t != skip && r->tree_used[t])
			sb_printf(&sb, "%s%s", sb.len ? "," : "", r->m->tree[t].name);
	return sb.s;
}

/* Each tree from a tarball: unpacked already, or the tarball there with room to unpack it. */
static void check_trees(const struct preflight_req *r, struct problems *pr)
{
	char why[1024];

	for (int t = 0; t < r->m->ntree; t++) {
		const struct tree_decl *d = &r->m->tree[t];
		char *others;

		if (!r->tree_used[t] || !d->tarball ||
		    !tree_check_tarball(d->tarball, d->package, r->o->cache_dir, why, sizeof(why)))
			continue;
		others = other_trees(r, t);
		if (*others)
			problem(pr, d->package, "tree %s: %s; or leave the tree out: TREES=%s",
				d->name, why, others);
		else
			problem(pr, d->package, "tree %s: %s", d->name, why);
		free(others);
	}
}

/* Does the host compiler find this header? On failure why gets its first error line. */
static int header_found(const char *dir, const char *header, char *why, size_t whylen)
{
	char *src = xasprintf("%s/header.c", dir), *log = xasprintf("%s/header.log", dir);
	char *text = xasprintf("#include <%s>\n", header);
	const char *argv[] = { "cc", "-fsyntax-only", src, NULL };
	struct spawn_result res = { .status = -1 };
	int ok = 0;

	unlink(log);
	if (write_file_atomic(src, text, strlen(text)) == 0 &&
	    spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 60 }, &res) == 0)
		ok = res.status == 0;
	if (!ok) {
		char *out = read_file(log, NULL);

		build_first_error(out ? out : "", "", why, whylen);
		free(out);
	}
	free(src);
	free(log);
	free(text);
	return ok;
}

static void check_host(const struct preflight_req *r, const char *dir, struct problems *pr)
{
	const struct matrix *m = r->m;
	int have_cc = 1;
	char why[512];

	for (int i = 0; i < m->nneed; i++) {
		const struct host_need *h = &m->need[i];

		if (h->header || program_found(h->name))
			continue;
		have_cc &= strcmp(h->name, "cc") != 0;
		problem(pr, h->package, "program '%s' not found; install: apt-get install %s",
			h->name, h->package);
	}
	for (int i = 0; i < m->nneed && have_cc; i++) {
		const struct host_need *h = &m->need[i];

		if (h->header && !header_found(dir, h->name, why, sizeof(why)))
			problem(pr, h->package, "header '%s' not found by cc (%s); install: apt-get "
				"install %s", h->name, why, h->package);
	}
	check_trees(r, pr);
}

/* QEMU is asked to boot a kernel that does not exist: it parses the arch's options, sets up
 * the machine (CPU model, memory, firmware) and stops with an error naming that file only when
 * all of that worked. Any other end is a QEMU that cannot boot this arch's guests. */
static void check_qemu(const struct arch *a, const char *dir, struct problems *pr)
{
	char *missing = xasprintf("%s/no-such-kernel-%s", dir, a->name);
	char *log = xasprintf("%s/qemu-%s.log", dir, a->name), *out = NULL, *pkgs;
	char *channel = xasprintf("%s/qemu-channel-%s.log", dir, a->name);
	char *none[] = { NULL }, *cmdline, *chardev;
	/* the very line a boot runs (boot.c), isolation and the guest's channel device included,
	 * with a kernel that is not there */
	const char **argv = boot_argv(&(struct boot_req){ .arch = a, .kernel = missing,
							  .initramfs = missing, .guest_args = none,
							  .guest_log = channel },
				      &cmdline, &chardev);
	struct spawn_result res;
	int started;

	unlink(log);
	/* in dir, as a boot runs in the cell's directory (boot.h): the channel's file, named bare
	 * on the line, goes there and not into whatever directory the run was started from */
	started = spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 30,
						 .cwd = dir },
			    &res) == 0;
	pkgs = matrix_arch_packages(a);
	if (!started) {
		problem(pr, pkgs, "arch %s: cannot run QEMU '%s': %s; install: apt-get install %s",
			a->name, a->qemu[0], strerror(errno), pkgs);
	} else if (!(out = read_file(log, NULL)) || res.status == 0 || !strstr(out, missing)) {
		char *nl = out ? strchr(out, '\n') : NULL;
		const char *why;

		if (nl)
			*nl = 0;	/* QEMU's first line says what went wrong */
		why = res.timed_out ? "no answer within 30 s" : out && *out ? out
		    : res.status ? "it failed without a message" : "it exited 0 without a kernel";
		problem(pr, pkgs, "arch %s: QEMU '%s' cannot set up the arch's machine (%s); "
			"install: apt-get install %s (full log: %s)", a->name, a->qemu[0], why, pkgs,
			log);
	}
	free(pkgs);
	free(out);
	free(argv);
	free(cmdline);
	free(chardev);
	free(channel);
	free(log);
	free(missing);
}

/* The numbers the arch's C library gives the system calls the guest makes by number
 * (syscalls.h), which the run checks against each tree's table once the trees are open. */
static void libc_syscall_numbers(const struct matrix *m, const char *cc, const char *dir,
				 struct arch_tools *t, char *pkgs, struct problems *pr)
{
	char why[1024];

	for (int i = 0; m->syscalls && m->syscalls[i]; i++)
		if ((t->syscall_nr[i] = syscalls_libc_number(cc, m->syscalls[i], dir, why,
							     sizeof(why))) < 0) {
			problem(pr, pkgs, "%s; install: apt-get install %s", why, pkgs);
			break;
		}
	free(pkgs);
}

/* The arch's guest (compiled and packed) and its tools hashed. Kernels are keyed by the
 * compiler's version and the make program, boots by the arch's QEMU version and the QEMU
 * program asked for, so a test's fake make or QEMU never shares cache entries with the real
 * ones. */
static void prepare_arch(const struct preflight_req *r, const struct arch *a,
			 struct arch_tools *t, struct problems *pr)
{
	const struct run_opts *o = r->o;
	char *dir = cache_guest_dir(o->cache_dir, a->name);
	char *cc = xasprintf("%sgcc", a->cross_compile), *log = xasprintf("%s/version.log", dir);
	const char *cc_argv[] = { cc, "--version", NULL };
	const char *qemu_argv[] = { a->qemu[0], "--version", NULL };
	const char *build[] = { "", o->make, NULL }, *boot[] = { "", o->qemu ? o->qemu : "", NULL };
	char why[2048], *cc_version = NULL, *qemu_version = NULL, *pkgs;

	if (mkdir_p(dir) == 0)
		cc_version = spawn_first_line(cc_argv, log);
	build[0] = cc_version ? cc_version : "";
	cache_key(t->toolchain, build);
	/* a plan (--config-only) builds and boots nothing: no guest and no QEMU, only the
	 * compiler, whose probes Kconfig runs */
	if (o->config_only) {
		if (!cc_version) {
			pkgs = matrix_arch_packages(a);
			problem(pr, pkgs, "arch %s: cannot run the compiler '%s' (see %s); install: "
				"apt-get install %s", a->name, cc, log, pkgs);
			free(pkgs);
		}
		goto out;
	}
	t->initramfs = guest_prepare(a, o->guest_src, cc_version ? cc_version : "", dir, why,
				     sizeof(why));
	t->guest_init = xasprintf("%s/init", dir);
	t->cc_version = xstrdup(cc_version ? cc_version : "");
	if (!t->initramfs) {
		pkgs = matrix_arch_packages(a);
		problem(pr, pkgs, "%s", why);
		free(pkgs);
	} else {
		/* the guest compiled, so the C library's headers are there: a missing compiler or
		 * C library is guest_prepare's one problem above, not a second one here */
		libc_syscall_numbers(r->m, cc, dir, t, matrix_arch_packages(a), pr);
		qemu_version = spawn_first_line(qemu_argv, log);
		boot[0] = qemu_version ? qemu_version : "";
		cache_key(t->emulator, boot);
		digest_tag_of_file(t->initramfs, t->guest_hash);
	}
	check_qemu(a, dir, pr);
out:
	free(cc_version);
	free(qemu_version);
	free(cc);
	free(log);
	free(dir);
}

int preflight(const struct preflight_req *r, struct arch_tools *tools, char *err, size_t errlen)
{
	const struct matrix *m = r->m;
	char *dir = cache_preflight_dir(r->o->cache_dir);
	struct problems pr = { 0 };

	memset(tools, 0, (size_t)m->narch * sizeof(*tools));
	if (!path_exists(r->o->guest_src)) {
		snprintf(err, errlen, "guest source '%s' not found; run from the repository top or "
			 "pass --guest", r->o->guest_src);
		free(dir);
		return -1;
	}
	if (r->o->resolver_src && !path_exists(r->o->resolver_src)) {
		snprintf(err, errlen, "Kconfig resolver source '%s' not found; run from the "
			 "repository top or pass --resolve-with olddefconfig", r->o->resolver_src);
		free(dir);
		return -1;
	}
	if (mkdir_p(dir)) {
		snprintf(err, errlen, "cannot create '%s': %s", dir, strerror(errno));
		free(dir);
		return -1;
	}
	check_host(r, dir, &pr);
	for (int a = 0; a < m->narch; a++)
		if (r->arch_used[a])
			prepare_arch(r, &m->arch[a], &tools[a], &pr);
	free(dir);
	/* A guest's test list that cannot be read is bad input, not a missing package. */
	for (int a = 0; a < m->narch && pr.n == 0; a++)
		if (r->arch_used[a] && !(tools[a].tests = guest_tests(r->o->guest_src, err, errlen))) {
			arch_tools_free(tools, m->narch);
			return -1;
		}
	if (pr.n == 0)
		return 0;
	snprintf(err, errlen, "%d problem%s found before any build; install what is missing: "
		 "apt-get install%s (as root, `make deps` does it)", pr.n, pr.n == 1 ? "" : "s",
		 pr.packages.s ? pr.packages.s : " (see above)");
	sb_free(&pr.packages);
	arch_tools_free(tools, m->narch);
	return -1;
}

void arch_tools_free(struct arch_tools *tools, int narch)
{
	for (int a = 0; a < narch; a++) {
		free(tools[a].initramfs);
		free(tools[a].guest_init);
		free(tools[a].cc_version);
		free_strings(tools[a].tests);
		tools[a].guest_init = tools[a].cc_version = NULL;
		tools[a].initramfs = NULL;
		tools[a].tests = NULL;
	}
}
