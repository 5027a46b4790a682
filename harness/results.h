/* results: the files a run leaves in results/, written together at the end of a run (and of a
 * merge), and read back from matrix.json by merge and diff.
 *
 *   matrix.md     the table (also printed on stdout)
 *   matrix.json   every cell's four layers, schema 1 (docs/matrix-json.md)
 *   matrix.tsv    one line per cell, for awk
 *   matrix.ktap   the whole matrix as one KTAP test plan
 *   junit.xml     one testcase per cell, for CI servers
 *   index.html    the page: the grid, coloured, each cell linking its files
 *
 *   kcidb.json    the run in KCIDB's schema
 *
 * The files are one set (write_files_as_one): all are written to temporary files, then renamed
 * into place while the mark .kcmpm-replacing exists. So a reader sees each file whole, and a
 * set that a SIGKILL left mixed among the renames says so: results_read refuses its
 * matrix.json. (matrix.json's schema: docs/matrix-json.md.)
 */
#ifndef KCMPM_RESULTS_H
#define KCMPM_RESULTS_H

#include "plan.h"
#include "report.h"

/* Beside a set of tables while they are put in place (and after, if the run was killed then). */
#define RESULTS_REPLACING_MARK ".kcmpm-replacing"

/* Writes every results file into dir. previous (may be NULL) is an earlier run to compare
 * with on the page. Returns -1 with a message in err. */
int results_write(const char *dir, const struct matrix *m, const struct plan *p,
		  const struct run_info *ri, const struct plan *previous, char *err, size_t errlen);

/* Reads a matrix.json (refused when its directory holds RESULTS_REPLACING_MARK), adding its cells to p (plan_index() numbers their combinations and puts
 * them in order afterwards) and its run figures to ri. A symbol that took m there takes m in
 * m from now on. Cells of arches, variants or symbols this matrix does not know are an error.
 * Returns -1 with "path: what" in err. */
int results_read(const char *path, struct matrix *m, struct plan *p, struct run_info *ri,
		 char *err, size_t errlen);
/* results_read on a matrix.json already in memory: text (len bytes, NUL bytes refused) named
 * name in err. The fuzz target feeds it (tests/fuzz/results_fuzz.c). */
int results_parse(const char *name, const char *text, size_t len, struct matrix *m,
		  struct plan *p, struct run_info *ri, char *err, size_t errlen);

#endif
