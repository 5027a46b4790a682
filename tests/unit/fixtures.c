/* Shared test data: see fixtures.h. */
#include "fixtures.h"
#include "check.h"
#include "util.h"

#include <stdio.h>

void fixture_plan(struct matrix *m, struct plan *p)
{
	char err[512] = "";
	char *v3[] = { "v3", NULL };
	struct plan_filter f = { .variants = v3, .only = "EXPERT=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y" };

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, m, err, sizeof(err)) == 0);
	matrix_tree_found(m, 0, "6.1.192", "/t");
	CHECK(plan_make(m, &f, p, err, sizeof(err)) == 0);
	CHECK(p->ncombo == 2 && p->ncell == 4);
	for (int i = 0; i < p->ncell; i++) {
		struct cell *c = &p->cell[i];

		memcpy(c->resolved, "nynyy", 5);
		c->status = CELL_PASS;
		c->built = 1;
		c->observed[0] = xstrdup("works");	/* kcmp, the headline */
	}
	p->cell[3].status = CELL_FAIL;
	snprintf(p->cell[3].reason, sizeof(p->cell[3].reason), "observed: a \"quoted\"\treason\n");
}
