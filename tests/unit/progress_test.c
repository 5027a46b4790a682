/* The progress display: a status line redrawn in place on a terminal, plain timestamped lines
 * anywhere else. */
#define _GNU_SOURCE
#include "check.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>

static char *show(int live)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	struct progress pg;

	progress_init(&pg, out, 4, live);
	progress_doing(&pg, "building x86_64 v3 kernel %d of %d", 1, 2);
	progress_line(&pg, 1, "[  1/4] a cell  PASS");
	progress_line(&pg, 0, "a note");
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
