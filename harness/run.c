/* run: see run.h. */
#define _GNU_SOURCE
#include "run.h"
#include "boot.h"
#include "build.h"
#include "guest.h"
#include "judge.h"
#include "kconfig.h"
#include "ktap.h"
#include "util.h"
#include "variant.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one (variant, arch) group shares while its cells run. */
struct group {
	const struct run_opts *o;
	const struct matrix *m;
	const struct tree *t;
	const struct variant_tree *vt;	/* the variant's source tree */
	const int *exists;		/* exists[s]: the variant's tree defines matrix symbol s */
	int variant, arch;
	struct build_ctx b;
	char *base;			/* full base config text */
	char *initramfs;
	int sysvipc;			/* the base has SYSVIPC */
	int done, total;		/* progress over the whole plan */
};

static char *cell_dir(const struct group *g, const struct cell *c)
{
	char *combo = plan_combo_name(g->m, c->combo);
	char *dir = xasprintf("%s/cells/%s/%s/%s", g->o->results_dir,
			      g->m->variant[c->variant].name, g->m->arch[c->arch].name, combo);

	free(combo);
	return dir;
}

/* The tag of a kernel: everything that makes its sources and config differ. */
static void config_tag(const struct group *g, const char *config, char out[17])
{
	uint64_t h = HASH_INIT;

	h = hash_bytes(h, g->t->tag, strlen(g->t->tag) + 1);
	h = hash_bytes(h, g->m->variant[g->variant].name, strlen(g->m->variant[g->variant].name) + 1);
	h = hash_bytes(h, g->vt->stamp, strlen(g->vt->stamp) + 1);
	h = hash_bytes(h, config, strlen(config));
	hash_hex(h, out);
}

static int resolve_cell(struct group *g, struct cell *c, char *err, size_t errlen)
{
	char *requested = kconfig_set(g->base, g->m->nsym, (const char *const *)g->m->sym,
				      c->requested);
	char *combo = plan_combo_name(g->m, c->combo);
	char *work = xasprintf("%s/%s.config", g->b.work_dir, combo);
	char *final = xasprintf("%s/config", c->dir);
	char *text = build_resolve(&g->b, requested, work, err, errlen);
	int rc = 0;

	if (!text) {
		c->status = CELL_CONFIG_FAIL;
		snprintf(c->reason, sizeof(c->reason), "%s", err);
		err[0] = 0;
	} else {
		for (int s = 0; s < g->m->nsym; s++)
			c->resolved[s] = kconfig_bool(text, g->m->sym[s], g->exists[s]);
		config_tag(g, text, c->config_tag);
		if (write_file_atomic(final, text, strlen(text))) {
			snprintf(err, errlen, "cannot write '%s': %s", final, strerror(errno));
			rc = -1;
		}
	}
	free(text);
	free(requested);
	free(combo);
	free(work);
	free(final);
	return rc;
}

/* Position of a resolved config in the reflected Gray code over the symbols in build order
 * (matrix.conf's build-order first, slowest-changing). Walking configs in this order, each
 * build differs from the previous one in as few symbols as possible, and the symbols whose
 * toggling recompiles the most change the least often. */
static unsigned gray_rank(const struct group *g, const struct cell *c)
{
	unsigned bits = 0, rank = 0;

	for (int k = 0; k < g->m->nsym; k++)
		bits = bits << 1 | (c->resolved[g->m->build_order[k]] == 'y');
	for (; bits; bits >>= 1)
		rank ^= bits;
	return rank;
}

/* Fills order[] with one representative cell index per distinct config, in Gray order;
 * returns how many. Cells whose config failed to resolve build nothing. */
static int order_builds(const struct group *g, struct cell **cells, int n, int *order)
{
	int k = 0;

	for (int i = 0; i < n; i++) {
		int dup = cells[i]->status != CELL_PENDING;

		for (int j = 0; j < k && !dup; j++)
			dup = !strcmp(cells[order[j]]->config_tag, cells[i]->config_tag);
		if (!dup)
			order[k++] = i;
	}
	/* insertion sort: at most 2^MAX_SYMBOLS entries */
	for (int i = 1; i < k; i++)
		for (int j = i; j > 0 && gray_rank(g, cells[order[j - 1]]) >
					 gray_rank(g, cells[order[j]]); j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	return k;
}

/* The last lines of a build log, for the cell's directory. */
static void write_log_tail(const char *log_path, const char *out_path, int lines)
{
	size_t len;
	char *log = read_file(log_path, &len);
	size_t i = len;

	if (!log)
		return;
	while (i > 0 && lines >= 0) {
		i--;
		if (log[i] == '\n')
			lines--;
	}
	if (i > 0)
		i++;
	write_file_atomic(out_path, log + i, len - i);
	free(log);
}

static void progress(struct group *g, const struct cell *c)
{
	char *combo = plan_combo_name(g->m, c->combo);

	g->done++;
	fprintf(stderr, "[%3d/%d] %-7s %s %s  build %.1fs boot %.1fs  %s%s%s\n", g->done, g->total,
		g->m->arch[c->arch].name, g->m->variant[c->variant].name, combo, c->build_seconds,
		c->boot_seconds, cell_status_name(c->status), c->status == CELL_PASS ? "" : ": ",
		c->status == CELL_PASS ? "" : c->reason);
	free(combo);
}

static int boot_cell(struct group *g, struct cell *c, const char *kernel, char *err,
		     size_t errlen)
{
	char *id = xasprintf("KCMPM_ID=kcmpm-%s", c->config_tag);
	char *kcmp = xasprintf("KCMPM_KCMP=%c", c->predicted.kcmp);
	char *epoll = xasprintf("KCMPM_EPOLL=%c", c->predicted.epoll);
	char *sysv = xasprintf("KCMPM_SYSVIPC=%c", g->sysvipc ? 'y' : 'n');
	char *args[] = { id, kcmp, epoll, sysv, NULL };
	char *log_path = xasprintf("%s/serial.log", c->dir);
	char *cmd_path = xasprintf("%s/qemu.cmd", c->dir);
	const struct arch *a = &g->m->arch[c->arch];
	struct boot_req req = { .arch = a, .qemu = g->o->qemu, .kernel = kernel,
				.initramfs = g->initramfs, .guest_args = args,
				.log_path = log_path, .cmd_path = cmd_path,
				.timeout = g->o->boot_timeout > 0 ? g->o->boot_timeout
								  : a->boot_timeout };
	struct boot_outcome out;
	struct ktap_log log;
	size_t len = 0;
	char *text;
	int rc = boot_run(&req, &out, err, errlen);

	if (rc == 0) {
		text = read_file(log_path, &len);
		ktap_parse(text ? text : "", text ? len : 0, &log);
		c->boot_seconds = out.seconds;
		judge_cell(&(struct judge_input){ .m = g->m, .boot = &out, .log = &log,
						  .kernel_id = id + 9 }, c);
		if (c->status == CELL_TIMEOUT) {
			size_t n = strlen(c->reason);

			snprintf(c->reason + n, sizeof(c->reason) - n, " after %.0f s", req.timeout);
		}
		ktap_free(&log);
		free(text);
	}
	for (int i = 0; args[i]; i++)
		free(args[i]);
	free(log_path);
	free(cmd_path);
	return rc;
}

static int build_and_boot(struct group *g, struct cell **cells, int n, int rep, char *err,
			  size_t errlen)
{
	const char *tag = cells[rep]->config_tag;
	const char *config = NULL;
	char *kdir = xasprintf("%s/kernels/%s/%s/%s/%s", g->o->cache_dir, g->t->tag,
			       g->m->variant[g->variant].name, g->m->arch[g->arch].name, tag);
	char *image = xasprintf("%s/image", kdir);
	char *log = xasprintf("%s/build.log", kdir);
	struct build_outcome bo;
	int rc = -1;

	config = xasprintf("%s/config", cells[rep]->dir);
	if (mkdir_p(kdir)) {
		snprintf(err, errlen, "cannot create '%s': %s", kdir, strerror(errno));
		goto out;
	}
	if (build_kernel(&g->b, config, tag, log, image, &bo, err, errlen))
		goto out;
	for (int i = 0; i < n; i++) {
		struct cell *c = cells[i];
		char *tail;

		if (c->status != CELL_PENDING || strcmp(c->config_tag, tag))
			continue;
		tail = xasprintf("%s/build.log", c->dir);
		write_log_tail(log, tail, 100);
		free(tail);
		c->build_seconds = i == rep ? bo.seconds : 0;
		c->built = bo.ok;
		if (!bo.ok) {
			judge_cell(&(struct judge_input){ .m = g->m, .build_error = bo.first_error }, c);
		} else if (boot_cell(g, c, image, err, errlen)) {
			goto out;
		}
		plan_apply_xfail(g->m, c);
		progress(g, c);
	}
	rc = 0;
out:
	free((char *)config);
	free(kdir);
	free(image);
	free(log);
	return rc;
}

static char **base_fragments(const struct group *g)
{
	int n = 0;
	char **v;

	while (g->m->base[n])
		n++;
	v = xcalloc((size_t)n + 2, sizeof(*v));
	for (int i = 0; i < n; i++)
		v[i] = xasprintf("%s/base/%s.config", g->o->matrix_dir, g->m->base[i]);
	v[n] = xasprintf("%s/base/%s.config", g->o->matrix_dir, g->m->arch[g->arch].name);
	return v;
}

static int run_group(struct group *g, struct plan *p, char *err, size_t errlen)
{
	const char *vname = g->m->variant[g->variant].name, *aname = g->m->arch[g->arch].name;
	struct cell **cells = xcalloc((size_t)p->ncell, sizeof(*cells));
	char **frags = base_fragments(g);
	char *guest_dir = xasprintf("%s/guest/%s", g->o->cache_dir, aname);
	int n = 0, nbuild, rc = -1, *order;

	for (int i = 0; i < p->ncell; i++)
		if (p->cell[i].variant == g->variant && p->cell[i].arch == g->arch)
			cells[n++] = &p->cell[i];
	order = xcalloc((size_t)n, sizeof(*order));
	g->b = (struct build_ctx){ .src = g->vt->path, .tree_tag = g->t->tag,
				   .arch = &g->m->arch[g->arch], .make = g->o->make, .jobs = g->o->jobs };
	g->b.build_dir = xasprintf("%s/build/%s/%s/%s", g->o->cache_dir, g->t->tag, vname, aname);
	g->b.work_dir = xasprintf("%s/work/%s/%s/%s", g->o->cache_dir, g->t->tag, vname, aname);
	g->initramfs = guest_prepare(&g->m->arch[g->arch], g->o->guest_src, guest_dir, err, errlen);
	if (!g->initramfs)
		goto out;
	fprintf(stderr, "kcmp-matrix: %s %s: base config and %d cell configs\n", aname, vname, n);
	g->base = build_base_config(&g->b, frags, err, errlen);
	if (!g->base)
		goto out;
	g->sysvipc = kconfig_bool(g->base, "SYSVIPC", 1) == 'y';
	for (int i = 0; i < n; i++) {
		cells[i]->dir = cell_dir(g, cells[i]);
		if (mkdir_p(cells[i]->dir)) {
			snprintf(err, errlen, "cannot create '%s': %s", cells[i]->dir, strerror(errno));
			goto out;
		}
		if (resolve_cell(g, cells[i], err, errlen))
			goto out;
		if (cells[i]->status == CELL_CONFIG_FAIL) {
			plan_apply_xfail(g->m, cells[i]);
			progress(g, cells[i]);
		}
	}
	nbuild = order_builds(g, cells, n, order);
	fprintf(stderr, "kcmp-matrix: %s %s: %d cells need %d distinct kernels\n", aname, vname, n,
		nbuild);
	for (int k = 0; k < nbuild; k++)
		if (build_and_boot(g, cells, n, order[k], err, errlen))
			goto out;
	rc = 0;
out:
	for (int i = 0; frags[i]; i++)
		free(frags[i]);
	free(frags);
	free(cells);
	free(order);
	free(guest_dir);
	free(g->b.build_dir);
	free(g->b.work_dir);
	free(g->base);
	free(g->initramfs);
	return rc;
}

int run_plan(const struct run_opts *o, const struct matrix *m, const struct tree *t,
	     struct plan *p, char *err, size_t errlen)
{
	int done = 0;

	for (int v = 0; v < m->nvariant; v++) {
		struct variant_tree vt;
		int exists[MAX_SYMBOLS], any = 0, rc = 0;

		for (int i = 0; i < p->ncell && !any; i++)
			any = p->cell[i].variant == v;
		if (!any)
			continue;
		if (variant_prepare(m->variant[v].patch_dir, m->variant[v].name, t, o->cache_dir, &vt,
				    err, errlen))
			return -1;
		tree_find_symbols(vt.path, m->nsym, (const char *const *)m->sym, exists);
		for (int a = 0; a < m->narch && rc == 0; a++) {
			struct group g = { .o = o, .m = m, .t = t, .vt = &vt, .exists = exists,
					   .variant = v, .arch = a, .done = done, .total = p->ncell };

			any = 0;
			for (int i = 0; i < p->ncell && !any; i++)
				any = p->cell[i].variant == v && p->cell[i].arch == a;
			if (any)
				rc = run_group(&g, p, err, errlen);
			done = g.done;
		}
		variant_tree_free(&vt);
		if (rc)
			return -1;
	}
	return 0;
}
