/* Shared test data: a small hand-made plan. */
#ifndef KCMPM_FIXTURES_H
#define KCMPM_FIXTURES_H

#include "matrix.h"
#include "plan.h"

/* v3, both arches, KCMP=n|y with EXPERT=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=y: four cells,
 * all PASS kcmp=works resolved nynyy, except the last (arm64, KCMP=y): FAIL with a reason that
 * needs escaping. */
void fixture_plan(struct matrix *m, struct plan *p);

#endif
