/* Planning: filters and the combination order. */
#include "check.h"
#include "matrix.h"
#include "plan.h"

#include <stdlib.h>
#include <string.h>

static int plan_count(const char *arches, const char *only, char *err, size_t errlen)
{
	struct matrix m;
	struct plan p;
	char *a[] = { (char *)arches, NULL }, *v[] = { "v3", NULL };
	struct plan_filter f = { .arches = arches ? a : NULL, .variants = v, .only = only };
	int n = -1;

	if (matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, errlen))
		return -2;
	if (plan_make(&m, &f, &p, err, errlen) == 0) {
		n = p.ncell;
		plan_free(&p);
	}
	matrix_free(&m);
	return n;
}

TEST(plan_counts)
{
	char err[512] = "";

	CHECK(plan_count(NULL, NULL, err, sizeof(err)) == 64);
	CHECK(plan_count("arm64", NULL, err, sizeof(err)) == 32);
	/* an extra arch only when named, or with all */
	CHECK(plan_count("riscv64", NULL, err, sizeof(err)) == 32);
	CHECK(plan_count("all", NULL, err, sizeof(err)) == 96);
	CHECK(plan_count("x86_64", "DRM=y", err, sizeof(err)) == 16);
	CHECK(plan_count(NULL, "EXPERT=y,KCMP=y,DRM=n", err, sizeof(err)) == 2 * 4);
	CHECK(plan_count(NULL, "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y DRM=y", err,
			 sizeof(err)) == 2 * (1 + 16));
}

TEST(plan_all_variants)
{
	struct matrix m;
	struct plan p;
	char err[256] = "";

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	CHECK(plan_make(&m, &(struct plan_filter){ 0 }, &p, err, sizeof(err)) == 0);
	CHECK(p.ncell == 3 * 2 * 32);
	plan_free(&p);
	matrix_free(&m);
}

TEST(plan_bad_filters)
{
	char err[512] = "";

	CHECK(plan_count("riscv", NULL, err, sizeof(err)) == -1);
	CHECK_STR(err, "unknown arch 'riscv' (matrix/matrix.conf lists the known ones)");
	CHECK(plan_count(NULL, "KCMP=maybe", err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "ONLY: bad term 'KCMP=maybe'");
	CHECK(plan_count(NULL, "FOO=y", err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "ONLY: bad term 'FOO=y'");
	CHECK(plan_count(NULL, "ARCH=sparc", err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "ONLY: bad term 'ARCH=sparc'");
}

TEST(plan_combination_values)
{
	struct matrix m;
	char err[256], v[8], *name;
	unsigned combo;

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	plan_combo_values(&m, 0, v);
	CHECK(!memcmp(v, "nnnnn", 5));
	plan_combo_values(&m, 0x10 | 0x01, v);
	CHECK(!memcmp(v, "ynnny", 5));
	name = plan_combo_name(&m, 0x10 | 0x02);
	CHECK_STR(name, "EXPERT=y,KCMP=n,CHECKPOINT_RESTORE=n,DRM=y,EPOLL=n");
	free(name);
	/* DRM tristate: the digit for DRM counts n m y, so the table keeps truth-table order */
	matrix_set_type(&m, 3, 't');
	CHECK(matrix_ncombo(&m) == 48);
	plan_combo_values(&m, 1 * 24 + 1 * 2 + 1, v);	/* EXPERT=y, DRM=m, EPOLL=y */
	CHECK(!memcmp(v, "ynnmy", 5));
	CHECK(plan_combo_of(&m, "ynnmy", &combo) == 0 && combo == 27);
	CHECK(plan_combo_of(&m, "ynnyy", &combo) == 0 && combo == 29);
	CHECK(plan_combo_of(&m, "mnnny", &combo) == -1);	/* EXPERT is a bool */
	name = plan_combo_name(&m, 47);
	CHECK_STR(name, "EXPERT=y,KCMP=y,CHECKPOINT_RESTORE=y,DRM=y,EPOLL=y");
	free(name);
	matrix_free(&m);
}

/* Every value of every symbol: with DRM tristate each arch and variant has 3 x 2^4 cells. */
TEST(plan_counts_with_a_tristate)
{
	struct matrix m;
	struct plan p;
	char err[256] = "", *v3[] = { "v3", NULL };

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	matrix_set_type(&m, 3, 't');
	CHECK(plan_make(&m, &(struct plan_filter){ 0 }, &p, err, sizeof(err)) == 0);
	CHECK(p.ncell == 3 * 2 * 48);
	plan_free(&p);
	CHECK(plan_make(&m, &(struct plan_filter){ .variants = v3, .only = "DRM=m" }, &p, err,
			sizeof(err)) == 0);
	CHECK(p.ncell == 2 * 16);
	for (int i = 0; i < p.ncell; i++)	/* v3: DRM=m selects the bool KCMP, which is y */
		CHECK(p.cell[i].requested[3] == 'm' && p.cell[i].predicted.value[1] == 'y' &&
		      !strcmp(p.cell[i].predicted.observe[0], "works"));
	plan_free(&p);
	matrix_free(&m);
}

/* Unset is the last digit of a symbol that takes it, named "unset" in combinations and picked
 * by ONLY's SYM=unset; its cells' predictions come from the defaults. */
TEST(plan_unset_cells)
{
	struct matrix m;
	struct plan p;
	char err[256] = "", v[8], *name, *v1v3[] = { "v1", "v3", NULL }, *x86[] = { "x86_64", NULL };
	unsigned combo;

	CHECK(matrix_load(FIXTURE_MATRIX, FIXTURE_PATCHES, &m, err, sizeof(err)) == 0);
	matrix_take_unset(&m, 1, 1);
	CHECK(matrix_ncombo(&m) == 48);
	plan_combo_values(&m, 1 * 24 + 2 * 8 + 1, v);	/* EXPERT=y, KCMP unset, EPOLL=y */
	CHECK(!memcmp(v, "yunny", 5));
	CHECK(plan_combo_of(&m, "yunny", &combo) == 0 && combo == 41);
	name = plan_combo_name(&m, 41);
	CHECK_STR(name, "EXPERT=y,KCMP=unset,CHECKPOINT_RESTORE=n,DRM=n,EPOLL=y");
	free(name);
	CHECK(plan_make(&m, &(struct plan_filter){ .variants = v1v3, .arches = x86,
						   .only = "EXPERT=y,KCMP=unset" }, &p, err,
			sizeof(err)) == 0);
	CHECK(p.ncell == 2 * 8);
	for (int i = 0; i < p.ncell; i++) {
		const struct cell *c = &p.cell[i];
		int v1 = c->variant == matrix_variant_index(&m, "v1");
		/* v1 defaults KCMP to y; v3 has no default, and only its selects give y */
		char want = v1 || c->requested[2] == 'y' || c->requested[3] == 'y' ? 'y' : 'n';

		CHECK(c->requested[1] == VALUE_UNSET && c->predicted.value[1] == want);
	}
	plan_free(&p);
	matrix_free(&m);
}
