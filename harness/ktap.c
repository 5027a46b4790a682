/* ktap: see ktap.h. */
#define _GNU_SOURCE
#include "ktap.h"
#include "util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

/* Skips a kernel "[    1.234567] " timestamp. */
static const char *after_timestamp(const char *s)
{
	const char *p = s;

	if (*p != '[')
		return s;
	while (*++p && (isdigit((unsigned char)*p) || *p == '.' || *p == ' '))
		;
	if (*p != ']')
		return s;
	p++;
	while (*p == ' ')
		p++;
	return p;
}

static void parse_observed(struct ktap_log *log, const char *s)
{
	char *copy = xstrdup(s), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char *eq = strchr(w, '='), **slot = NULL;

		if (!eq)
			continue;
		*eq = 0;
		for (int i = 0; i < log->nobserved && !slot; i++)
			if (!strcmp(log->observed_name[i], w))
				slot = &log->observed_state[i];	/* a repeat: the last one counts */
		if (!slot && log->nobserved < KTAP_MAX_OBSERVED) {
			log->observed_name[log->nobserved] = xstrdup(w);
			slot = &log->observed_state[log->nobserved++];
		}
		if (slot) {
			free(*slot);
			*slot = xstrdup(eq + 1);
		}
	}
	free(copy);
}

/* "ok N name # directive" or "not ok N ..." */
static int parse_result(struct ktap_log *log, const char *s)
{
	struct ktap_test t = { 0 };
	const char *p = s, *hash;
	char *end;
	long n;

	if (starts(p, "not ok "))
		p += 7;
	else if (starts(p, "ok "))
		t.ok = 1, p += 3;
	else
		return 0;
	n = strtol(p, &end, 10);
	if (end == p || n <= 0 || (*end && *end != ' '))
		return 0;
	t.number = (int)n;
	p = end;
	while (*p == ' ' || *p == '-')
		p++;
	hash = strstr(p, " # ");
	t.name = hash ? strndup(p, (size_t)(hash - p)) : xstrdup(p);
	if (!t.name)
		die("out of memory");
	if (hash && !strncasecmp(hash + 3, "SKIP", 4)) {
		t.skip = 1;
		t.skip_why = xstrdup(hash[7] == ' ' ? hash + 8 : hash + 7);
	}
	if (t.number != log->ntest + 1)
		log->out_of_order = 1;
	log->test = xrealloc(log->test, sizeof(t) * (size_t)(log->ntest + 1));
	log->test[log->ntest++] = t;
	return 1;
}

static void keep_first(char **slot, const char *s)
{
	if (!*slot)
		*slot = xstrdup(s);
}

static int has_mark(const char *line, char *const *marks)
{
	for (int i = 0; marks && marks[i]; i++)
		if (strstr(line, marks[i]))
			return 1;
	return 0;
}

/* Crash and warning lines. A warning counts from the kernel's banner to the kernel's last line,
 * the power-off included: a kernel that warns while the guest's last calls are torn down (a
 * task's exit, a file's release) warned all the same. What QEMU's firmware printed before the
 * banner is not the kernel's. */
static void parse_kernel_line(struct ktap_log *log, const struct console_marks *marks,
			      const char *body)
{
	if (!marks)
		return;
	if (has_mark(body, marks->crash))
		keep_first(&log->crash, body);
	if (log->banner && has_mark(body, marks->warning))
		keep_first(&log->warning, body);
}

/* The guest's own lines: what KTAP and the kcmp-matrix diagnostics look like. */
static int guest_line(const char *s)
{
	return starts(s, "# ") || starts(s, "ok ") || starts(s, "not ok ") || starts(s, "KTAP ") ||
	       starts(s, "1..");
}

/* Which lines of a text are read: the kernel's (banner, crashes, warnings), the guest's (KTAP
 * and its diagnostics), or both, as on a console the two share. */
enum { KERNEL_LINES = 1, GUEST_LINES = 2 };

static void parse_kernel(struct ktap_log *log, const struct console_marks *marks, const char *s)
{
	const char *body = after_timestamp(s);

	if (starts(body, "Linux version "))
		keep_first(&log->banner, body);
	if (!guest_line(s))
		parse_kernel_line(log, marks, body);
}

static void parse_guest(struct ktap_log *log, const char *s)
{
	struct ktap_test *last = log->ntest ? &log->test[log->ntest - 1] : NULL;

	if (starts(s, "KTAP version ")) {
		log->versions++;
	} else if (starts(s, "1..")) {
		char *end;
		long n = strtol(s + 3, &end, 10);

		if (end != s + 3 && !*end && log->plan < 0)
			log->plan = (int)n;
	} else if (starts(s, "# kcmp-matrix kernel: ")) {
		keep_first(&log->kernel, s + 22);
	} else if (starts(s, "# kcmp-matrix observed: ")) {
		parse_observed(log, s + 24);
	} else if (!strcmp(s, "# kcmp-matrix: powering off")) {
		log->powered_off = 1;
	} else if (!strcmp(s, "# kcmp-matrix: guest started")) {
		log->started = 1;
	} else if (starts(s, "# ")) {
		if (last && !last->ok && !last->diag)
			last->diag = xstrdup(s + 2);
	} else {
		parse_result(log, s);
	}
}

/* Each line of text, read for what says (KERNEL_LINES, GUEST_LINES). */
static void parse_lines(const char *text, size_t len, const struct console_marks *marks, int what,
			struct ktap_log *log)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i, n;
		char *line;

		while (j < len && text[j] != '\n')
			j++;
		n = j - i;
		while (n && (text[i + n - 1] == '\r' || text[i + n - 1] == ' '))
			n--;
		line = xmalloc(n + 1);
		memcpy(line, text + i, n);
		line[n] = 0;
		/* A NUL byte from a garbled console ends the line early; that is fine. */
		if (what & KERNEL_LINES)
			parse_kernel(log, marks, line);
		if (what & GUEST_LINES)
			parse_guest(log, line);
		free(line);
		i = j + 1;
	}
}

void ktap_parse(const char *text, size_t len, const struct console_marks *marks,
		struct ktap_log *log)
{
	*log = (struct ktap_log){ .plan = -1 };
	parse_lines(text, len, marks, KERNEL_LINES | GUEST_LINES, log);
}

void ktap_parse_split(const char *console, size_t console_len, const char *guest,
		      size_t guest_len, const struct console_marks *marks, struct ktap_log *log)
{
	*log = (struct ktap_log){ .plan = -1, .split = 1 };
	parse_lines(console, console_len, marks, KERNEL_LINES, log);
	parse_lines(guest, guest_len, marks, GUEST_LINES, log);
}

void ktap_free(struct ktap_log *log)
{
	for (int i = 0; i < log->ntest; i++) {
		free(log->test[i].name);
		free(log->test[i].diag);
		free(log->test[i].skip_why);
	}
	free(log->test);
	free(log->kernel);
	free(log->banner);
	for (int i = 0; i < log->nobserved; i++) {
		free(log->observed_name[i]);
		free(log->observed_state[i]);
	}
	free(log->crash);
	free(log->warning);
	*log = (struct ktap_log){ .plan = -1 };
}

const char *ktap_problem(const struct ktap_log *log, char *buf, size_t len)
{
	if (log->versions == 0)
		snprintf(buf, len, "no KTAP output from the guest%s",
			 log->split ? " on its own channel" : "");
	else if (log->versions > 1)
		snprintf(buf, len, "KTAP header seen %d times: the guest started more than once",
			 log->versions);
	else if (log->plan < 0)
		snprintf(buf, len, "KTAP output has no plan line");
	else if (log->ntest != log->plan)
		snprintf(buf, len, "KTAP plan 1..%d but %d results", log->plan, log->ntest);
	else if (log->out_of_order)
		snprintf(buf, len, "KTAP results out of order");
	else if (log->nobserved == 0)
		snprintf(buf, len, "the guest did not report what it observed");
	else if (!log->powered_off)
		snprintf(buf, len, "the guest did not finish (no power-off line)");
	else
		return NULL;
	return buf;
}

const char *ktap_observed(const struct ktap_log *log, const char *name)
{
	for (int i = 0; i < log->nobserved; i++)
		if (!strcmp(log->observed_name[i], name))
			return log->observed_state[i];
	return NULL;
}

const struct ktap_test *ktap_first_failure(const struct ktap_log *log)
{
	for (int i = 0; i < log->ntest; i++)
		if (!log->test[i].ok)
			return &log->test[i];
	return NULL;
}
