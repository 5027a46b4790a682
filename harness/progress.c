/* progress: see progress.h. */
#define _GNU_SOURCE
#include "progress.h"
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void progress_init(struct progress *pg, FILE *out, int total, int live)
{
	const char *term = getenv("TERM");

	if (live < 0)
		live = isatty(fileno(out)) && term && *term && strcmp(term, "dumb");
	*pg = (struct progress){ .out = out, .live = live, .total = total, .start = now_seconds() };
	pthread_mutex_init(&pg->lock, NULL);
}

static void clock_text(double seconds, char *buf, size_t len)
{
	long s = (long)seconds;

	if (s >= 3600)
		snprintf(buf, len, "%ldh%02ldm", s / 3600, s / 60 % 60);
	else
		snprintf(buf, len, "%ldm%02lds", s / 60, s % 60);
}

static void status_line(struct progress *pg)
{
	double elapsed = now_seconds() - pg->start;
	char took[32], left[32] = "?";

	clock_text(elapsed, took, sizeof(took));
	if (pg->done > 0)
		clock_text(elapsed / pg->done * (pg->total - pg->done), left, sizeof(left));
	/* \r and erase-line: the status line is redrawn where it is */
	fprintf(pg->out, "\r\033[K[%d/%d] %s  %s elapsed, ~%s left", pg->done, pg->total, pg->doing,
		took, left);
	fflush(pg->out);
}

static void timestamp(struct progress *pg)
{
	time_t now = time(NULL);
	struct tm tm;
	char buf[16];

	localtime_r(&now, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fprintf(pg->out, "[%s] ", buf);
}

void progress_doing(struct progress *pg, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&pg->lock);
	va_start(ap, fmt);
	vsnprintf(pg->doing, sizeof(pg->doing), fmt, ap);
	va_end(ap);
	if (pg->live) {
		status_line(pg);
	} else {
		timestamp(pg);
		fprintf(pg->out, "%s\n", pg->doing);
	}
	pthread_mutex_unlock(&pg->lock);
}

int progress_line(struct progress *pg, int cell, const char *fmt, ...)
{
	va_list ap;
	int done;

	pthread_mutex_lock(&pg->lock);
	pg->done += cell;
	done = pg->done;
	if (pg->live)
		fputs("\r\033[K", pg->out);
	else
		timestamp(pg);
	if (cell)
		fprintf(pg->out, "[%3d/%d] ", pg->done, pg->total);
	va_start(ap, fmt);
	vfprintf(pg->out, fmt, ap);
	va_end(ap);
	fputc('\n', pg->out);
	if (pg->live)
		status_line(pg);
	pthread_mutex_unlock(&pg->lock);
	return done;
}

void progress_tick(void *arg)
{
	struct progress *pg = arg;

	pthread_mutex_lock(&pg->lock);
	if (pg->live)
		status_line(pg);
	pthread_mutex_unlock(&pg->lock);
}

void progress_end(struct progress *pg)
{
	if (pg->live)
		fputs("\r\033[K", pg->out);
	fflush(pg->out);
	pthread_mutex_destroy(&pg->lock);
}
