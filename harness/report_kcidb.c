/* report_kcidb: the run as KCIDB I/O data, schema 5.3 (../shared/kcidb/), so a nightly can be
 * submitted where kernel CI results meet (`kcidb-submit < results/kcidb.json`).
 *
 *   checkouts  one per tree and variant: the Debian tree, its kernel version, the variant's
 *              patch series as patchset_files
 *   builds     one per distinct kernel (tree, variant, arch, kernel tag): its arch, compiler,
 *              config, build log, duration and status
 *   tests      per cell: kcmp_matrix.boot (the whole cell's verdict), then one per guest test
 *              as the cell's console reported it, kcmp_matrix.guest.<test>
 *   issues     one per known-failure declaration (kernel-patch/<variant>/xfail)
 *   incidents  one per XFAIL cell, linking its declaration to its build (build:) or its boot
 *              test (test:, warning:)
 *
 * Ids are "<origin>:<hash of what names the object>", so the same cell on the same inputs has
 * the same ids every night. The origin is KCIDB_ORIGIN (default kcmp_matrix). File URLs are
 * file:// paths of this results directory (KCIDB_ARTIFACTS_URL replaces its path with where
 * the directory is published). Statuses, from the harness's (README: "KCIDB"):
 *
 *   harness       build        boot test   guest tests
 *   PASS, XPASS   PASS         PASS        as reported
 *   FAIL          PASS         FAIL        as reported
 *   KERNEL_WARN   PASS         FAIL        as reported
 *   BOOT_FAIL     PASS         FAIL        as reported (none when no KTAP)
 *   TIMEOUT       PASS         ERROR       as reported
 *   XFAIL         FAIL (unbuilt) or PASS   FAIL   as reported
 *   BUILD_FAIL    FAIL         MISS        none
 *   BUILD_TIMEOUT ERROR        MISS        none
 *   ERROR         ERROR        MISS        none
 *   CONFIG_FAIL   MISS         MISS        none
 *   PENDING       MISS         MISS        none
 *   CONFIG_OK     SKIP         SKIP        none (a config-only run builds nothing)
 */
#define _GNU_SOURCE
#include "cache.h"
#include "ktap.h"
#include "report.h"
#include "util.h"
#include "variant.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *report_kcidb_origin(void)
{
	const char *o = getenv("KCIDB_ORIGIN");

	if (!o || !*o)
		return "kcmp_matrix";
	return strspn(o, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(o) ? o : NULL;
}

/* One KCIDB document in the making (jansson). */
struct kcidb {
	json_t *doc;
	json_t *list;		/* the list objects go into now */
	const char *origin;
	const char *dir;	/* the results directory, absolute */
	const char *url;	/* what file URLs start with: file://<dir> or KCIDB_ARTIFACTS_URL */
};

/* A file:// URL of an absolute path, its path percent-encoded (a space, '%', '#' in a results
 * directory's name would otherwise end or change the URL). Caller frees. */
static char *file_url(const char *path)
{
	char *escaped = url_path_escape(path), *url = xasprintf("file://%s", escaped);

	free(escaped);
	return url;
}

/* The URL of a file of a cell's directory (cell: its path under the results directory). */
static char *cell_file_url(const struct kcidb *k, const char *cell, const char *file)
{
	char *escaped = url_path_escape(cell), *url = xasprintf("%s/%s/%s", k->url, escaped, file);

	free(escaped);
	return url;
}

/* "<origin>:<16 hex digits>" naming the parts. Caller frees. */
static char *kcidb_id(const struct kcidb *k, const char *const *parts)
{
	char key[17];

	cache_key(key, parts);
	return xasprintf("%s:%s", k->origin, key);
}

static void field(json_t *o, const char *key, const char *value)
{
	json_object_set_new(o, key, report_json_text(value));
}

/* A new object of the current list, with its id and origin (the list owns it). */
static json_t *begin_object(struct kcidb *k, const char *id)
{
	json_t *o = json_object();

	field(o, "id", id);
	field(o, "origin", k->origin);
	json_array_append_new(k->list, o);
	return o;
}

static void begin_list(struct kcidb *k, const char *name)
{
	k->list = json_array();
	json_object_set_new(k->doc, name, k->list);
}

/* RFC 3339 in UTC, for t seconds since the epoch. */
static void rfc3339(time_t t, char out[32])
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
}

static const char *build_status(const struct cell *c)
{
	switch (c->status) {
	case CELL_XFAIL: return c->built ? "PASS" : "FAIL";	/* a known build failure */
	case CELL_BUILD_FAIL: return "FAIL";
	case CELL_BUILD_TIMEOUT:
	case CELL_ERROR: return "ERROR";
	case CELL_CONFIG_FAIL:
	case CELL_PENDING: return "MISS";
	case CELL_CONFIG_OK: return "SKIP";
	default: return "PASS";
	}
}

static const char *boot_status(enum cell_status s)
{
	switch (s) {
	case CELL_PASS:
	case CELL_XPASS: return "PASS";
	case CELL_FAIL:
	case CELL_KERNEL_WARN:
	case CELL_BOOT_FAIL:
	case CELL_XFAIL: return "FAIL";
	case CELL_TIMEOUT: return "ERROR";
	case CELL_CONFIG_OK: return "SKIP";
	default: return "MISS";
	}
}

/* The id of a cell's checkout, build and boot test. Caller frees each. */
static char *checkout_id(const struct kcidb *k, const struct matrix *m, int tree, int variant)
{
	const struct tree_decl *t = &m->tree[tree];

	return kcidb_id(k, (const char *const[]){ "checkout", t->name, t->version ? t->version : "",
						   m->variant[variant].name, NULL });
}

static char *build_id(const struct kcidb *k, const struct matrix *m, const struct cell *c)
{
	char *checkout = checkout_id(k, m, c->tree, c->variant), *id;
	/* a cell whose config never resolved has no kernel: its build is its request */
	char *cell = c->kernel_tag[0] ? xstrdup("") : plan_cell_path(m, c);

	id = kcidb_id(k, (const char *const[]){ "build", checkout, m->arch[c->arch].name,
					       c->kernel_tag, cell, NULL });
	free(cell);
	free(checkout);
	return id;
}

static char *test_id(const struct kcidb *k, const struct matrix *m, const struct cell *c,
		     const char *path)
{
	char *cell = plan_cell_path(m, c), *id = kcidb_id(k, (const char *const[]){ "test", cell, path,
								     NULL });

	free(cell);
	return id;
}

static void checkouts(struct kcidb *k, const struct matrix *m, const struct plan *p, time_t start)
{
	char when[32];

	rfc3339(start, when);
	begin_list(k, "checkouts");
	for (int t = 0; t < m->ntree; t++)
		for (int v = 0; v < m->nvariant; v++) {
			const struct tree_decl *d = &m->tree[t];
			char *id, *series_dir, err[512], **patches;
			json_t *o, *files, *misc;
			int used = 0;

			for (int i = 0; i < p->ncell && !used; i++)
				used = p->cell[i].tree == t && p->cell[i].variant == v;
			if (!used)
				continue;
			id = checkout_id(k, m, t, v);
			o = begin_object(k, id);
			field(o, "tree_name", d->package ? d->package : d->name);
			if (d->version)
				field(o, "git_commit_name", d->version);
			field(o, "start_time", when);
			json_object_set_new(o, "valid", json_true());
			files = json_array();
			json_object_set_new(o, "patchset_files", files);
			series_dir = variant_series_dir(m->variant[v].patch_dir, d->version ? d->version
											 : "");
			patches = variant_series(series_dir, m->patch_root, err, sizeof(err));
			for (int i = 0; patches && patches[i]; i++) {
				char *real = realpath(patches[i], NULL), *url, *slash;
				json_t *file = json_object();

				slash = strrchr(patches[i], '/');
				url = file_url(real ? real : patches[i]);
				field(file, "name", slash ? slash + 1 : patches[i]);
				field(file, "url", url);
				json_array_append_new(files, file);
				free(url);
				free(real);
			}
			misc = json_object();
			field(misc, "variant", m->variant[v].name);
			field(misc, "tree", d->name);
			json_object_set_new(o, "misc", misc);
			free_strings(patches);
			free(series_dir);
			free(id);
		}
}

/* Is this cell the first of the plan with its kernel (so its build is written once)? */
static int first_of_kernel(const struct plan *p, int i)
{
	const struct cell *c = &p->cell[i];

	if (!c->kernel_tag[0])
		return 1;
	for (int j = 0; j < i; j++) {
		const struct cell *o = &p->cell[j];

		if (o->tree == c->tree && o->variant == c->variant && o->arch == c->arch &&
		    !strcmp(o->kernel_tag, c->kernel_tag))
			return 0;
	}
	return 1;
}

static void builds(struct kcidb *k, const struct matrix *m, const struct plan *p)
{
	begin_list(k, "builds");
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		const struct arch *a = &m->arch[c->arch];
		char *id, *checkout, *cell, *combo, *url, *compiler;
		json_t *o, *misc;

		if (!first_of_kernel(p, i))
			continue;
		id = build_id(k, m, c);
		checkout = checkout_id(k, m, c->tree, c->variant);
		cell = plan_cell_path(m, c);
		combo = plan_combo_name(m, c->combo);
		o = begin_object(k, id);
		field(o, "checkout_id", checkout);
		field(o, "architecture", a->kernel_arch);
		compiler = xasprintf("%sgcc", a->cross_compile);
		field(o, "compiler", compiler);
		field(o, "config_name", combo);
		url = cell_file_url(k, cell, "config");
		field(o, "config_url", url);
		free(url);
		url = cell_file_url(k, cell, "build.log");
		field(o, "log_url", url);
		free(url);
		if (c->build_seconds > 0)
			json_object_set_new(o, "duration", report_json_tenths(c->build_seconds));
		field(o, "status", build_status(c));
		if (strcmp(build_status(c), "PASS"))
			field(o, "log_excerpt", c->reason);
		misc = json_object();
		field(misc, "kernel_tag", c->kernel_tag);
		if (m->flavour_in_use)	/* its base fragments are in every such kernel */
			field(misc, "flavour", m->flavour_in_use);
		json_object_set_new(misc, "cached", json_boolean(c->kernel_cached));
		json_object_set_new(o, "misc", misc);
		free(compiler);
		free(combo);
		free(cell);
		free(checkout);
		free(id);
	}
}

/* The guest's tests of a cell, from its last boot's files in the results directory: its guest
 * channel where the arch has one, else its console. */
static void guest_tests(struct kcidb *k, const struct matrix *m, const struct cell *c,
			const char *build)
{
	int channel = m->arch[c->arch].channel != CHANNEL_NONE;
	char *cell = plan_cell_path(m, c);
	char *path = xasprintf("%s/%s/%s", k->dir, cell, channel ? "guest.log" : "serial.log");
	size_t len = 0;
	char *text = read_file(path, &len);
	struct ktap_log log;

	ktap_parse(text ? text : "", text ? len : 0, NULL, &log);
	for (int t = 0; t < log.ntest; t++) {
		const struct ktap_test *kt = &log.test[t];
		char *name, *id, *url;
		json_t *o, *misc;

		if (strspn(kt->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
		    != strlen(kt->name))
			continue;	/* not a name KCIDB's paths allow: the judge failed it anyway */
		name = xasprintf("kcmp_matrix.guest.%s", kt->name);
		id = test_id(k, m, c, name);
		o = begin_object(k, id);
		field(o, "build_id", build);
		field(o, "path", name);
		field(o, "status", kt->skip ? "SKIP" : kt->ok ? "PASS" : "FAIL");
		if (kt->diag)
			field(o, "comment", kt->diag);
		url = cell_file_url(k, cell, "serial.log");
		field(o, "log_url", url);
		misc = json_object();
		json_object_set_new(misc, "ktap_number", json_integer(kt->number));
		json_object_set_new(o, "misc", misc);
		free(url);
		free(id);
		free(name);
	}
	ktap_free(&log);
	free(text);
	free(path);
	free(cell);
}

static void tests(struct kcidb *k, const struct matrix *m, const struct plan *p)
{
	begin_list(k, "tests");
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		char *build = build_id(k, m, c), *id = test_id(k, m, c, "kcmp_matrix.boot");
		char *cell = plan_cell_path(m, c), *url = cell_file_url(k, cell, "serial.log");
		char *env = xasprintf("QEMU %s under TCG", m->arch[c->arch].name);
		json_t *o = begin_object(k, id), *environment = json_object(), *misc = json_object();

		field(o, "build_id", build);
		field(o, "path", "kcmp_matrix.boot");
		field(o, "status", boot_status(c->status));
		if (c->boot_seconds > 0)
			json_object_set_new(o, "duration", report_json_tenths(c->boot_seconds));
		if (c->reason[0])
			field(o, "comment", c->reason);
		if (c->attempts > 0)
			field(o, "log_url", url);
		field(environment, "comment", env);
		json_object_set_new(o, "environment", environment);
		field(misc, "harness_status", cell_status_name(c->status));
		json_object_set_new(misc, "flaky", json_boolean(c->flaky));
		field(misc, "cell", cell);
		json_object_set_new(o, "misc", misc);
		if (c->attempts > 0)
			guest_tests(k, m, c, build);
		free(url);
		free(env);
		free(cell);
		free(id);
		free(build);
	}
}

static char *issue_id(const struct kcidb *k, const struct variant *v, const struct xfail *x)
{
	char line[16];

	snprintf(line, sizeof(line), "%d", x->lineno);
	return kcidb_id(k, (const char *const[]){ "issue", v->name, line, x->match, x->reason,
						   NULL });
}

static void issues(struct kcidb *k, const struct matrix *m)
{
	static const char *const category[] = { [XFAIL_BUILD] = "build.error",
						[XFAIL_TEST] = "test.failure",
						[XFAIL_WARNING] = "runtime.warning" };

	begin_list(k, "issues");
	for (int v = 0; v < m->nvariant; v++)
		for (int i = 0; i < m->variant[v].nxfail; i++) {
			const struct xfail *x = &m->variant[v].xfail[i];
			char *id = issue_id(k, &m->variant[v], x);
			json_t *o = begin_object(k, id), *categories = json_array();
			json_t *culprit = json_object(), *misc = json_object();

			json_object_set_new(o, "version", json_integer(1));
			field(o, "comment", x->reason);
			json_array_append_new(categories, json_string(category[x->kind]));
			json_object_set_new(o, "categories", categories);
			json_object_set_new(culprit, "code", json_true());
			json_object_set_new(o, "culprit", culprit);
			field(misc, "variant", m->variant[v].name);
			json_object_set_new(misc, "line", json_integer(x->lineno));
			json_object_set_new(o, "misc", misc);
			free(id);
		}
}

/* The declaration an XFAIL cell answers to: the first whose pattern holds, as the judge took. */
static const struct xfail *declaration(const struct matrix *m, const struct cell *c)
{
	const struct variant *v = &m->variant[c->variant];

	for (int i = 0; i < v->nxfail; i++)
		if (matrix_pattern_matches(&v->xfail[i].pattern, m->nsym, c->resolved, c->arch))
			return &v->xfail[i];
	return NULL;
}

/* Has list (n ids) got id? */
static int listed(char *const *list, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(list[i], id))
			return 1;
	return 0;
}

/* One incident per issue and build or test: cells that share a kernel share its build, and
 * its known build failure is one incident. */
static void incidents(struct kcidb *k, const struct matrix *m, const struct plan *p)
{
	char **written = xcalloc((size_t)p->ncell + 1, sizeof(*written));
	int nwritten = 0;

	begin_list(k, "incidents");
	for (int i = 0; i < p->ncell; i++) {
		const struct cell *c = &p->cell[i];
		const struct xfail *x = c->status == CELL_XFAIL ? declaration(m, c) : NULL;
		char *issue, *target, *id;
		int on_build;

		if (!x)
			continue;
		issue = issue_id(k, &m->variant[c->variant], x);
		on_build = x->kind == XFAIL_BUILD;
		target = on_build ? build_id(k, m, c) : test_id(k, m, c, "kcmp_matrix.boot");
		id = kcidb_id(k, (const char *const[]){ "incident", issue, target, NULL });
		if (!listed(written, nwritten, id)) {
			json_t *o = begin_object(k, id);

			field(o, "issue_id", issue);
			json_object_set_new(o, "issue_version", json_integer(1));
			field(o, on_build ? "build_id" : "test_id", target);
			json_object_set_new(o, "present", json_true());
			written[nwritten++] = id;
		} else {
			free(id);
		}
		free(target);
		free(issue);
	}
	free_strings(written);
}

char *report_kcidb(const struct matrix *m, const struct plan *p, const struct run_info *ri,
		   const char *results_dir)
{
	char *dir = realpath(results_dir, NULL), *url, *text;
	const char *published = getenv("KCIDB_ARTIFACTS_URL");
	struct kcidb k = { .origin = report_kcidb_origin(), .doc = json_object() };
	json_t *version = json_object();

	if (!k.origin)
		k.origin = "kcmp_matrix";	/* main refused a bad KCIDB_ORIGIN at its start */
	k.dir = dir ? dir : results_dir;
	url = published && *published ? xstrdup(published) : file_url(k.dir);
	k.url = url;
	json_object_set_new(version, "major", json_integer(5));
	json_object_set_new(version, "minor", json_integer(3));
	json_object_set_new(k.doc, "version", version);
	checkouts(&k, m, p, time(NULL) - (time_t)ri->seconds);
	builds(&k, m, p);
	tests(&k, m, p);
	issues(&k, m);
	incidents(&k, m, p);
	text = report_json_dump(k.doc);
	json_decref(k.doc);
	free(url);
	free(dir);
	return text;
}
