/* libFuzzer target for the reader of matrix.json (what merge and diff read, possibly from
 * another machine's shard): any bytes in, no crash, no leak, no undefined behaviour, and a
 * document it accepts reads back the same once written. Seeds: tests/data/matrix-json/ (a real
 * run's matrix.json, cut to a few cells). The matrix is the repository's own (matrix/), so run
 * it from the top of the tree, as make fuzz does. */
#include "results.h"
#include "util.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* What merge and diff do with a file: read it, then number its cells' combinations. Returns the
 * document as this harness writes it, or NULL when refused (with a message). The matrix is
 * loaded afresh each time: reading a file adds its trees and symbol types to it. */
static char *read_and_write(const char *text, size_t len)
{
	struct matrix m;
	struct plan p = { 0 };
	struct run_info ri = { 0 };
	char err[2048] = "";
	char *written = NULL;

	if (matrix_load("matrix", "kernel-patch", &m, err, sizeof(err)))
		abort();	/* not run from the top of the tree */
	if (results_parse("fuzz", text, len, &m, &p, &ri, err, sizeof(err)) == 0 &&
	    plan_index(&m, &p, err, sizeof(err)) == 0)
		written = report_json(&m, &p, &ri);
	else if (!err[0])
		abort();	/* a refusal always says why */
	plan_free(&p);
	free_strings(ri.whole_plan);
	matrix_free(&m);
	return written;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *first = read_and_write((const char *)data, size), *second;

	if (!first)
		return 0;
	/* what the harness wrote it must read, and reading it changes nothing more */
	second = read_and_write(first, strlen(first));
	if (!second || strcmp(first, second))
		abort();
	free(first);
	free(second);
	return 0;
}
