/* group: see group.h. */
#define _GNU_SOURCE
#include "group.h"
#include "cache_layout.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>

/* Does the plan hold a cell of this variant and arch? -1 for either: of any. */
int plan_has_cells(const struct plan *p, int variant, int arch)
{
	for (int i = 0; i < p->ncell; i++)
		if ((variant < 0 || p->cell[i].variant == variant) &&
		    (arch < 0 || p->cell[i].arch == arch))
			return 1;
	return 0;
}

/* A (variant, arch) group before its configs: what it is made of, not yet the run's display
 * or the arch's build state. */
struct group group_of(const struct run_opts *o, const struct matrix *m,
		      const struct tree *t, const struct variant_tree *vts,
		      char (*exists)[MAX_SYMBOLS], const struct arch_tools *arch_tools,
		      int v, int a)
{
	return (struct group){ .o = o, .m = m, .t = t, .vt = &vts[v], .exists = exists[v],
			       .variant = v, .arch = a, .tools = arch_tools };
}

/* The (variant, arch) pairs of the tree's groups: those with cells and a variant tree, as
 * group[k] = { v, a }. Variant-major, so the first of them are one per arch (the config forks
 * then start each making its arch's kit, rather than two of one arch where the second would
 * wait for the first's). Returns how many. */
int group_pairs(const struct matrix *m, const struct plan *p,
		const struct variant_tree *vts, int (*group)[2])
{
	int n = 0;

	for (int v = 0; v < m->nvariant; v++)
		for (int a = 0; a < m->narch; a++)
			if (plan_has_cells(p, v, a) && vts[v].path) {
				group[n][0] = v;
				group[n++][1] = a;
			}
	return n;
}

char *cell_dir(const struct group *g, const struct cell *c)
{
	char *rel = plan_cell_path(g->m, c);
	char *dir = xasprintf("%s/%s", g->o->results_dir, rel);

	free(rel);
	return dir;
}

char *kernel_kind(const struct tree *t, const struct matrix *m, int variant, int arch)
{
	return cache_kernels_kind(t->tag, m->variant[variant].name, m->arch[arch].name);
}

void group_free(struct group *g)
{
	resolver_session_end(&g->session);
	resolver_kit_free(&g->kit);
	for (int i = 0; g->config_error && i < g->ncell; i++)
		free(g->config_error[i]);
	free(g->config_error);
	free(g->cells);
	free(g->kernel_kind);
	free(g->resolver_id);
	free(g->memo_dir);
	free(g->b.build_dir);
	free(g->b.work_dir);
	free(g->base);
}
