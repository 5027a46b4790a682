/* boot_stage: see boot_stage.h. */
#define _GNU_SOURCE
#include "boot_stage.h"
#include "boot.h"
#include "judge.h"
#include "jobserver.h"
#include "dotconfig.h"
#include "ktap.h"
#include "arch_tools.h"
#include "progress.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The guest's expectations, as words for the kernel command line (free each), which the kernel
 * hands to the guest as its environment: KCMPM_ID=<the kernel's tag> first, then
 * KCMPM_EXPECT_<observable>=<predicted state> for each observable,
 * KCMPM_CONFIG_<SYMBOL>=<y|m|n> for each guest-config symbol, from the cell's final config,
 * and, when the question has a selftest, KCMPM_SELFTEST=run where the prediction meets its
 * needs, else skip. */
static void guest_args(const struct group *g, const struct cell *c,
		       char *args[MAX_GUEST_ARGS])
{
	char *path = xasprintf("%s/config", c->dir), *config = read_file(path, NULL);
	int n = 0;

	args[n++] = xasprintf("KCMPM_ID=kcmpm-%s", c->kernel_tag);
	for (int i = 0; i < g->m->nobs; i++)
		args[n++] = xasprintf("KCMPM_EXPECT_%s=%s", g->m->obs[i], c->predicted.observe[i]);
	for (int k = 0; g->m->guest_config[k]; k++) {
		char v = config ? dotconfig_bool(config, g->m->guest_config[k], 1) : 0;

		args[n++] = xasprintf("KCMPM_CONFIG_%s=%c", g->m->guest_config[k], v ? v : 'n');
	}
	if (g->m->selftest_src)
		args[n++] = xasprintf("KCMPM_SELFTEST=%s",
				      plan_selftest_runs(g->m, c) ? "run" : "skip");
	args[n] = NULL;
	free(config);
	free(path);
}

/* What a cell's boot is made of, made once from the group and the cell (cell_boot_make), so
 * what follows takes this and neither the group nor the cell: the guest's words, the paths
 * (absolute: QEMU runs in the cell's directory, boot.h), the request and its command line,
 * which is the boots' cache key, the cell's qemu.cmd and what runs (kernel and line NULL:
 * nothing to boot), and what the boots are kept and retried by. */
struct cell_boot {
	char *args[MAX_GUEST_ARGS];
	char *log_path, *guest_log, *kernel, *initramfs, *qemu;
	struct boot_req req;
	char *line;
	const char *dir;		/* the cell's directory */
	int channel;			/* the arch has a guest channel: each boot leaves two files */
	const struct console_marks *marks;
	char key[17];			/* the boots' cache entry (boot_key) */
	const struct cache_use *cache;
	struct jobserver *jobserver;	/* its boots run in the builds' job slots (boot_in_slot) */
	struct progress *pg;
	int retries;			/* --boot-retries */
	char *what;			/* "<arch> <variant> <combo>", for the progress lines */
};

/* Forgets the boots read so far (an unreadable cache entry), keeping the rest of b. */
static void drop_attempts(struct boots *b)
{
	for (int i = 0; i < b->n; i++)
		ktap_free(&b->attempt[i].log);
	b->n = 0;
}

void boots_free(struct boots *b)
{
	drop_attempts(b);
	free(b->repro_qemu);
	b->repro_qemu = NULL;
}

/* The files boot k of n leaves in the cell's directory: its console, then, where the arch has
 * one, its guest channel (NULL-terminated; free_strings). */
static char **attempt_files(const struct cell_boot *cb, int k, int n)
{
	char **files = xcalloc(3, sizeof(*files));

	files[0] = plan_console_name(k, n);
	if (cb->channel)
		files[1] = plan_guest_log_name(k, n);
	return files;
}

/* Reads boot k of n (its files in the cell's directory) into the next attempt: with a guest
 * channel, the kernel's lines from the console and the guest's from the channel alone. */
static void add_attempt(const struct cell_boot *cb, struct boots *b, int k, int n,
			const struct boot_outcome *out)
{
	char **files = attempt_files(cb, k, n), *text[2] = { NULL, NULL };
	struct boot_attempt *a = &b->attempt[b->n++];
	size_t len[2] = { 0, 0 };

	for (int i = 0; files[i]; i++) {
		char *path = xasprintf("%s/%s", cb->dir, files[i]);

		text[i] = read_file(path, &len[i]);
		free(path);
	}
	a->outcome = *out;
	if (files[1])
		ktap_parse_split(text[0] ? text[0] : "", len[0], text[1] ? text[1] : "", len[1],
				 cb->marks, &a->log);
	else
		ktap_parse(text[0] ? text[0] : "", len[0], cb->marks, &a->log);
	free(text[0]);
	free(text[1]);
	free_strings(files);
}

/* Earlier boots' consoles and channels go, so the cell's directory shows this run's boots
 * only. */
static void remove_attempt_logs(const char *dir)
{
	for (int k = 1; k <= MAX_BOOT_ATTEMPTS; k++) {
		char *names[] = { plan_console_name(k, 0), plan_guest_log_name(k, 0) };

		for (int i = 0; i < 2; i++) {
			char *path = xasprintf("%s/%s", dir, names[i]);

			unlink(path);
			free(path);
			free(names[i]);
		}
	}
}

/* Removes what an earlier run's boots of the cell left in its directory (the consoles, the
 * guest channel's logs, qemu.cmd): a cell whose kernel did not build this time was not
 * booted, and must not show another run's boot as its own. */
static void boot_forget_cell(const char *dir)
{
	static const char *const names[] = { "serial.log", "guest.log", "qemu.cmd" };

	remove_attempt_logs(dir);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *path = xasprintf("%s/%s", dir, names[i]);

		unlink(path);
		free(path);
	}
}

/* The boots from the cache into the cell's directory: 0, or -1 when the entry is missing or
 * unreadable (then boot afresh). */
static int reuse_boots(const struct cell_boot *cb, struct boots *b)
{
	char *outcome = cb->cache->reuse_boots ? cache_get_text(cb->cache, "boots", cb->key,
								 "outcome")
					       : NULL;
	const char *line = outcome;
	struct boot_outcome out[MAX_BOOT_ATTEMPTS];
	int n = 0, used;

	while (line && n < MAX_BOOT_ATTEMPTS &&
	       sscanf(line, "%d %d %lf%n", &out[n].status, &out[n].timed_out, &out[n].seconds,
		      &used) == 3) {
		n++;
		line = strchr(line + used, '\n');
		line = line ? line + 1 : NULL;
	}
	free(outcome);
	for (int k = 1; k <= n; k++) {
		char **files = attempt_files(cb, k, n);
		int failed = 0;

		for (int i = 0; files[i] && !failed; i++) {
			char *cached = cache_file(cb->cache->dir, "boots", cb->key, files[i]);
			char *dest = xasprintf("%s/%s", cb->dir, files[i]);

			failed = copy_file(cached, dest);
			free(dest);
			free(cached);
		}
		free_strings(files);
		if (failed)
			break;
		add_attempt(cb, b, k, n, &out[k - 1]);
	}
	/* an entry from before the machine's fault was kept out is never trusted: booted again */
	if (b->n == n && n && !judge_boot_retryable(&b->attempt[n - 1]))
		return 0;
	/* not boots_free: the reproducer's QEMU line stays for the boots afresh */
	drop_attempts(b);
	remove_attempt_logs(cb->dir);	/* what it copied */
	return -1;
}

/* Caches the boots of a cell: every attempt's console and outcome, so a rerun judges the same
 * attempts (a flaky pass stays flaky). The entry is written anew. */
static void store_boots(const struct cell_boot *cb, const struct boots *b)
{
	struct strbuf outcome = { 0 };
	int failed = 0;

	if (!cb->cache->store)
		return;
	cache_begin(cb->cache, "boots", cb->key);
	for (int k = 1; k <= b->n && !failed; k++) {
		const struct boot_outcome *o = &b->attempt[k - 1].outcome;
		char **files = attempt_files(cb, k, b->n);

		for (int i = 0; files[i] && !failed; i++) {
			char *from = xasprintf("%s/%s", cb->dir, files[i]);
			char *to = cache_file(cb->cache->dir, "boots", cb->key, files[i]);

			failed = copy_file(from, to);
			free(to);
			free(from);
		}
		free_strings(files);
		sb_printf(&outcome, "%d %d %.3f\n", o->status, o->timed_out, o->seconds);
	}
	if (!failed)
		cache_put_text(cb->cache, "boots", cb->key, "outcome", outcome.s);
	sb_free(&outcome);
}

/* A boot keeps a core busy while it runs (QEMU's TCG), so it runs in a job slot of the
 * builds' jobserver, like a make: a boot beside the other arch's compile jobs neither slows
 * them nor runs slow itself, which its time limit would count against it. */
static int boot_in_slot(const struct cell_boot *cb, struct boot_outcome *out, char *err,
			size_t errlen)
{
	int rc;

	if (jobserver_take(cb->jobserver, err, errlen))
		return -1;
	rc = boot_run(&cb->req, out, err, errlen);
	jobserver_give(cb->jobserver);
	return rc;
}

/* Keeps boot k's files (serial.log, guest.log) as those of an earlier attempt
 * (serial.attempt-<k>.log, ...) before the next boot. */
static void keep_attempt(const struct cell_boot *cb, int k)
{
	char **now = attempt_files(cb, 1, 1), **kept = attempt_files(cb, k, 0);

	for (int i = 0; now[i]; i++) {
		char *from = xasprintf("%s/%s", cb->dir, now[i]);
		char *to = xasprintf("%s/%s", cb->dir, kept[i]);

		if (rename(from, to))
			warn("cannot keep '%s' as '%s':", from, to);
		free(to);
		free(from);
	}
	free_strings(kept);
	free_strings(now);
}

/* Boots the kernel until a boot is not the machine's fault (judge_boot_retryable) or the
 * retries are spent; each earlier attempt's console stays as serial.attempt-<k>.log (and its
 * channel as guest.attempt-<k>.log). */
static int boot_afresh(const struct cell_boot *cb, struct boots *b, char *err, size_t errlen)
{
	const char *guest_log = cb->req.guest_log;
	int rc = 0;

	for (int k = 1; rc == 0; k++) {
		struct boot_outcome out = { 0 };

		progress_doing(cb->pg, "booting %s%s", cb->what, k > 1 ? " again" : "");
		rc = boot_in_slot(cb, &out, err, errlen);
		if (rc)
			break;
		/* a QEMU that never opened the channel (a fake, or one that died first) left no
		 * file: an empty one says so, and the boot's files are always a pair */
		if (guest_log && !path_exists(guest_log) && write_file_atomic(guest_log, "", 0))
			warn("cannot write '%s':", guest_log);
		add_attempt(cb, b, 1, 1, &out);
		if (!judge_boot_retryable(&b->attempt[b->n - 1]) || k > cb->retries ||
		    b->n == MAX_BOOT_ATTEMPTS)
			break;
		keep_attempt(cb, k);
		progress_line(cb->pg, 0, "%s: boot %d %s, with no crash or warning (the machine's "
			      "fault); booting again", cb->what, k,
			      judge_boot_killed(&b->attempt[b->n - 1])
				      ? "ended with QEMU killed by a signal not ours"
				      : "timed out before the guest started");
	}
	return rc;
}

/* The boots' cache entry: each attempt's outcome line ("status timed_out seconds"), then its
 * console as serial.attempt-<k>.log, the last one as serial.log, and its guest channel beside
 * it (guest.attempt-<k>.log, guest.log) where the arch has one. The key names the format, so
 * an entry of another layout is a miss, never misread. Boots whose last one was the machine's
 * fault (judge_boot_retryable) are never kept: the next run boots again. The command line
 * names the kernel's path, which names its tag, and the guest channel's file bare (boot.c), so
 * it is the same for every results directory and their boots share the entry. */
static void boot_key(const struct group *g, const struct cell *c, const char *line,
		     double timeout, char key[17])
{
	char seconds[32], retries[16];
	const char *parts[] = { "boots 3", c->kernel_tag, g->ab->guest_hash, g->tools->emulator,
				line, seconds, retries, NULL };

	snprintf(seconds, sizeof(seconds), "%g", timeout);
	snprintf(retries, sizeof(retries), "%d", g->o->boot_retries);
	cache_key(key, parts);
}

/* The QEMU line of reproduce.sh: the cell's boot with the kernel and the guest channel in
 * the by-hand build directory (PLAN_REPRO_DIR) and the guest where the run took it. */
static char *repro_line(const struct group *g, const struct cell_boot *cb)
{
	const struct arch *a = cb->req.arch;
	char *kernel = xasprintf("%s/%s", PLAN_REPRO_DIR, a->image);
	char *guest_log = xasprintf("%s/guest.log", PLAN_REPRO_DIR);
	char *line = boot_command(&(struct boot_req){ .arch = a, .qemu = g->o->qemu,
						      .kernel = kernel,
						      .initramfs = g->ab->initramfs,
						      .guest_args = cb->args,
						      .guest_log = guest_log });

	free(guest_log);
	free(kernel);
	return line;
}

static void cell_boot_make(const struct group *g, const struct cell *c, const char *kernel,
			   struct cell_boot *cb)
{
	const struct arch *a = &g->m->arch[c->arch];
	const char *qemu = g->o->qemu;
	char *combo = plan_combo_name(g->m, c->combo);

	guest_args(g, c, cb->args);
	cb->log_path = xasprintf("%s/serial.log", c->dir);
	cb->guest_log = xasprintf("%s/guest.log", c->dir);
	cb->kernel = kernel ? absolute_path(kernel) : NULL;
	cb->initramfs = absolute_path(g->ab->initramfs);
	cb->qemu = qemu && strchr(qemu, '/') ? absolute_path(qemu) : NULL;
	cb->req = (struct boot_req){ .arch = a, .qemu = cb->qemu ? cb->qemu : qemu,
				     .kernel = cb->kernel, .initramfs = cb->initramfs,
				     .guest_args = cb->args, .log_path = cb->log_path,
				     .guest_log = cb->guest_log,
				     .timeout = g->o->boot_timeout > 0 ? g->o->boot_timeout
								      : a->boot_timeout };
	cb->line = kernel ? boot_command(&cb->req) : NULL;
	cb->dir = c->dir;
	cb->channel = a->channel != CHANNEL_NONE;
	cb->marks = &a->marks;
	if (cb->line)
		boot_key(g, c, cb->line, cb->req.timeout, cb->key);
	cb->cache = &g->cache;
	cb->jobserver = g->ab->b.jobserver;
	cb->pg = g->pg;
	cb->retries = g->o->boot_retries;
	cb->what = xasprintf("%s %s %s", a->name, g->m->variant[c->variant].name, combo);
	free(combo);
}

static void cell_boot_free(struct cell_boot *cb)
{
	for (int i = 0; cb->args[i]; i++)
		free(cb->args[i]);
	free(cb->log_path);
	free(cb->guest_log);
	free(cb->kernel);
	free(cb->initramfs);
	free(cb->qemu);
	free(cb->line);
	free(cb->what);
}

/* The boots of a kernel that was built: from the cache, or booted afresh (and cached unless the
 * last one was the machine's fault). */
static int boot_built(const struct cell_boot *cb, struct boots *b, char *err, size_t errlen)
{
	char *cmd_path = xasprintf("%s/qemu.cmd", cb->dir), *text = xasprintf("%s\n", cb->line);
	int rc = 0;

	if (write_file_atomic(cmd_path, text, strlen(text)))
		warn("cannot write '%s':", cmd_path);
	remove_attempt_logs(cb->dir);
	b->cached = reuse_boots(cb, b) == 0;
	if (!b->cached) {
		rc = boot_afresh(cb, b, err, errlen);
		/* boots that ended in the machine's fault say nothing of the kernel: not kept, so
		 * the next run boots it again */
		if (rc == 0 && !judge_boot_retryable(&b->attempt[b->n - 1]))
			store_boots(cb, b);
	}
	for (int k = 0; k < b->n && !b->cached; k++)
		b->seconds += b->attempt[k].outcome.seconds;
	free(text);
	free(cmd_path);
	return rc;
}

int boot_cell(struct group *g, const struct cell *c, const char *kernel, struct boots *b,
	      char *err, size_t errlen)
{
	struct cell_boot cb = { 0 };
	int rc = 0;

	/* a kernel that did not build is not booted, but its reproducer boots what it builds */
	cell_boot_make(g, c, kernel, &cb);
	*b = (struct boots){ .timeout = cb.req.timeout, .repro_qemu = repro_line(g, &cb) };
	snprintf(b->kernel_id, sizeof(b->kernel_id), "%s", cb.args[0] + strlen("KCMPM_ID="));
	if (!kernel)
		boot_forget_cell(cb.dir);
	else
		rc = boot_built(&cb, b, err, errlen);
	if (rc)
		boots_free(b);
	cell_boot_free(&cb);
	return rc;
}
