/* merge: see merge.h. */
#define _GNU_SOURCE
#include "merge.h"

#include "plan.h"
#include "report.h"
#include "results.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies every regular file of each cell's directory from a shard's results to ours. */
static void copy_cell_files(const struct matrix *m, const struct plan *p, const char *from_dir,
			    const char *to_dir)
{
	for (int i = 0; i < p->ncell; i++) {
		char *rel = plan_cell_path(m, &p->cell[i]);
		char *from = xasprintf("%s/%s", from_dir, rel), *to = xasprintf("%s/%s", to_dir, rel);

		if (copy_dir_files(from, to))
			die("merge: cannot copy '%s' to '%s':", from, to);
		free(rel);
		free(from);
		free(to);
	}
}

/* A cell from its report_cell_name(): 0, or -1 when the name is no cell of the matrix. */
static int cell_from_name(const struct matrix *m, const char *name, struct cell *c)
{
	char tree[64], variant[64], arch[64], combo[512], *save = NULL;
	int n = 0;

	*c = (struct cell){ .status = CELL_PENDING };
	if (sscanf(name, "%63s %63s %63s %511s", tree, variant, arch, combo) != 4)
		return -1;
	c->tree = matrix_tree_index(m, tree);
	c->variant = matrix_variant_index(m, variant);
	c->arch = matrix_arch_index(m, arch);
	for (char *t = strtok_r(combo, ",", &save); t; t = strtok_r(NULL, ",", &save), n++) {
		char *eq = strchr(t, '=');
		int s;

		if (!eq)
			return -1;
		*eq = 0;
		s = matrix_symbol_index(m, t);
		if (s < 0 || !matrix_value_from_name(eq + 1))
			return -1;
		c->requested[s] = matrix_value_from_name(eq + 1);
	}
	return c->tree < 0 || c->variant < 0 || c->arch < 0 || n != m->nsym ? -1 : 0;
}

/* Is the cell named name (report_cell_name) among the first n cells of all? */
static int has_cell(const struct matrix *m, const struct plan *all, int n, const char *name)
{
	for (int i = 0; i < n; i++) {
		char *own = report_cell_name(m, &all->cell[i]);
		int same = !strcmp(own, name);

		free(own);
		if (same)
			return 1;
	}
	return 0;
}

/* The cells no shard reported: PENDING, with why. A shard's cells are its slice of the whole
 * plan, as plan_shard cut it: [(k-1)*N/n, k*N/n). A shard that did not report (seen[k - 1] 0)
 * leaves its whole slice; a shard stopped midway (a partial matrix.json) the cells of its
 * slice it had not finished. Returns how many were added. */
static int add_unfinished_cells(const struct matrix *m, struct plan *all, char **whole, int n,
				const int *seen)
{
	int nw = 0, reported = all->ncell;

	while (whole[nw])
		nw++;
	for (int k = 1; k <= n; k++) {
		int from = (int)((long)(k - 1) * nw / n), to = (int)((long)k * nw / n);

		for (int w = from; w < to; w++) {
			struct cell *c;

			if (seen[k - 1] && has_cell(m, all, reported, whole[w]))
				continue;
			all->cell = xrealloc(all->cell, (size_t)(all->ncell + 1) * sizeof(*all->cell));
			c = &all->cell[all->ncell];
			if (cell_from_name(m, whole[w], c))
				die("merge: a shard's whole_plan names '%s', which is no cell of "
				    "matrix/", whole[w]);
			snprintf(c->reason, sizeof(c->reason), seen[k - 1]
				 ? "not run: shard %d/%d stopped before it" :
				 "not run: shard %d/%d did not report", k, n);
			all->ncell++;
		}
	}
	return all->ncell - reported;
}

void merge_shards(char *const *dirs, const char *results_dir, struct matrix *m,
		  struct plan *all, struct run_info *ri)
{
	int n = 0, nshard = 0, seen[1024] = { 0 };
	char err[2048];

	*all = (struct plan){ 0 };
	*ri = (struct run_info){ 0 };
	for (; dirs[nshard]; nshard++) {
		struct plan one = { 0 };
		struct run_info one_ri = { .whole_plan = ri->whole_plan };
		char *path = xasprintf("%s/matrix.json", dirs[nshard]);
		int k = 0, of = 0;

		if (results_read(path, m, &one, &one_ri, err, sizeof(err)) ||
		    plan_index(m, &one, err, sizeof(err)))
			die("merge: %s", err);
		ri->whole_plan = one_ri.whole_plan;
		if (sscanf(one_ri.shard, "%d/%d", &k, &of) != 2 || of < 1 || of > 1024 || k < 1 ||
		    k > of || (n && of != n) || seen[k - 1]++)
			die("merge: '%s' is not one shard of the same run as the others (its shard is "
			    "'%s'); give each shard K/N of one N once", path, one_ri.shard);
		n = of;
		copy_cell_files(m, &one, dirs[nshard], results_dir);
		all->cell = xrealloc(all->cell, (size_t)(all->ncell + one.ncell) * sizeof(*all->cell));
		memcpy(all->cell + all->ncell, one.cell, (size_t)one.ncell * sizeof(*one.cell));
		all->ncell += one.ncell;
		free(one.cell);
		free(one.combo);
		ri->seconds += one_ri.seconds;
		if (one_ri.max_rss_kib > ri->max_rss_kib)
			ri->max_rss_kib = one_ri.max_rss_kib;
		if (one_ri.partial[0])
			snprintf(ri->partial, sizeof(ri->partial), "shard %s %.2500s", one_ri.shard,
				 one_ri.partial);
		free(path);
	}
	if (nshard == 0 || (nshard != n && !ri->whole_plan))
		die("merge: %d shard directories given, but the shards say there are %d; give all of "
		    "them", nshard, n);
	if (ri->whole_plan) {
		int unfinished = add_unfinished_cells(m, all, ri->whole_plan, n, seen);

		if (nshard != n)
			snprintf(ri->partial, sizeof(ri->partial), "%d of %d shards reported; %d cells "
				 "did not run", nshard, n, unfinished);
		else if (unfinished && !ri->partial[0])
			snprintf(ri->partial, sizeof(ri->partial), "%d cells did not run", unfinished);
	}
	free_strings(ri->whole_plan);
	ri->whole_plan = NULL;
	if (plan_index(m, all, err, sizeof(err)))
		die("merge: %s", err);
}
