/* The progress display: a status line redrawn in place on a terminal, plain timestamped lines
 * anywhere else. */
#define _GNU_SOURCE
#include "check.h"
#include "progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *show(int live)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct progress pg;

	progress_init(&pg, out, 4, live);
	progress_doing(&pg, "building x86_64 v3 kernel %d of %d", 1, 2);
	CHECK(progress_line(&pg, 1, "a cell  PASS") == 1);
	CHECK(progress_line(&pg, 0, "a note") == 1);
	progress_tick(&pg);
	progress_end(&pg);
	CHECK(pg.done == 1);
	fclose(out);
	return text;
}

TEST(progress_live_status_line)
{
	char *text = show(1);

	CHECK_CONTAINS(text, "\r\033[K[0/4] building x86_64 v3 kernel 1 of 2  0m00s elapsed, ~? left");
	CHECK_CONTAINS(text, "\r\033[K[  1/4] a cell  PASS\n\r\033[K[1/4] building x86_64 v3 kernel 1 of 2  0m00s elapsed, ~0m00s left");
	CHECK_CONTAINS(text, "\r\033[Ka note\n");
	free(text);
}

TEST(progress_log_lines_have_no_escapes)
{
	char *text = show(0);
	int lines = 0;

	CHECK(!strchr(text, '\033') && !strchr(text, '\r'));
	for (char *p = text; (p = strchr(p, '\n')); p++)
		lines++;
	CHECK(lines == 3);
	/* every line starts with a [HH:MM:SS] timestamp */
	for (char *line = text; *line; line = strchr(line, '\n') + 1)
		CHECK(line[0] == '[' && line[3] == ':' && line[6] == ':' && line[9] == ']');
	CHECK_CONTAINS(text, "] building x86_64 v3 kernel 1 of 2\n");
	CHECK_CONTAINS(text, "] [  1/4] a cell  PASS\n");
	free(text);
}

enum { PER_THREAD = 300 };

static void *finish_cells(void *arg)
{
	for (int i = 0; i < PER_THREAD; i++)
		progress_line(arg, 1, "cell of a thread");
	return NULL;
}

/* Both arches' threads finish cells through one progress: every cell gets its own number, in
 * order, each line whole. */
TEST(progress_numbers_cells_of_two_threads_once_each)
{
	char *text = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct progress pg;
	pthread_t t[2];
	int want = 1;

	progress_init(&pg, out, 2 * PER_THREAD, 0);
	for (int i = 0; i < 2; i++)
		CHECK(pthread_create(&t[i], NULL, finish_cells, &pg) == 0);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	CHECK(pg.done == 2 * PER_THREAD);
	progress_end(&pg);
	fclose(out);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char expect[64];

		snprintf(expect, sizeof(expect), "] [%3d/%d] cell of a thread", want, 2 * PER_THREAD);
		CHECK_CONTAINS(line, expect);
		want++;
	}
	CHECK(want == 2 * PER_THREAD + 1);
	free(text);
}
