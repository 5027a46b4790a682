/* resolver: see resolver.h. */
#define _GNU_SOURCE
#include "resolver.h"
#include "digest.h"
#include "spawn.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *auto_conf_cmd(const struct build_ctx *b)
{
	return xasprintf("%s/include/config/auto.conf.cmd", b->build_dir);
}

/* The objects of the tree's conf program but its main (conf.o), as glob found them. */
static int kconfig_objects(const struct build_ctx *b, glob_t *g)
{
	char *pattern = xasprintf("%s/scripts/kconfig/*.o", b->build_dir);
	int rc = glob(pattern, 0, NULL, g);

	free(pattern);
	if (rc)
		return -1;
	for (size_t i = 0; i < g->gl_pathc; i++) {
		const char *slash = strrchr(g->gl_pathv[i], '/');

		if (!strcmp(slash + 1, "conf.o"))
			return 0;
	}
	return -1;	/* no conf.o: not the directory of a conf build */
}

int resolver_ready(const struct build_ctx *b)
{
	char *cmd = auto_conf_cmd(b);
	glob_t g;
	int ready = path_exists(cmd) && kconfig_objects(b, &g) == 0;

	if (ready)
		globfree(&g);
	free(cmd);
	return ready;
}

/* The memo's source, beside the resolver's (kcmpm_memo.c). Caller frees. */
static char *memo_source(const char *source)
{
	const char *slash = strrchr(source, '/');

	return slash ? xasprintf("%.*s/kcmpm_memo.c", (int)(slash - source), source)
		     : xstrdup("kcmpm_memo.c");
}

char *resolver_identity(const char *source)
{
	char *memo, *text, *memo_text, hex[17];
	struct digest h;

	if (!source)
		return xstrdup("olddefconfig");
	memo = memo_source(source);
	text = read_file(source, NULL);
	memo_text = read_file(memo, NULL);
	free(memo);
	if (!text || !memo_text) {
		free(text);
		free(memo_text);
		return NULL;
	}
	digest_init(&h);
	digest_add_string(&h, text);
	digest_add(&h, memo_text, strlen(memo_text));
	digest_tag(&h, hex);
	free(text);
	free(memo_text);
	return xasprintf("kcmpm-resolve %s", hex);
}

char *resolver_memo_object(const struct build_ctx *kb, const char *source, char *err,
			   size_t errlen)
{
	char *src = memo_source(source), *obj = xasprintf("%s/kcmpm-memo.o", kb->build_dir);
	char *log = xasprintf("%s/memo-build.log", kb->work_dir);
	const char *argv[] = { "gcc", "-O2", "-c", "-o", obj, src, NULL };
	struct spawn_result res;

	unlink(log);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 120 }, &res) ||
	    res.status) {
		snprintf(err, errlen, "cannot compile the $(shell) memo %s; see %s", src, log);
		free(obj);
		obj = NULL;
	}
	free(src);
	free(log);
	return obj;
}

char **resolver_env_parse(const char *text)
{
	static const char head[] = "ifneq \"$(";
	char **env = NULL;
	size_t n = 0;

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		size_t len = strcspn(p, "\n");
		const char *name = p + strlen(head), *close, *value, *end;

		if (strncmp(p, head, strlen(head)))
			continue;
		close = memmem(name, len - (size_t)(name - p), ")\" \"", 4);
		end = p + len;
		if (!close || end[-1] != '"' || end - 1 < close + 4)
			continue;
		value = close + 4;
		env = xrealloc(env, sizeof(*env) * (n + 2));
		env[n++] = xasprintf("%.*s=%.*s", (int)(close - name), name, (int)(end - 1 - value),
				     value);
		env[n] = NULL;
	}
	return env;
}

/* conf.o with its main renamed kcmpm_conf_main (what makes a session's base), in exe_dir. */
static char *renamed_conf(const struct build_ctx *b, const char *exe_dir, const char *log,
			  char *err, size_t errlen)
{
	char *from = xasprintf("%s/scripts/kconfig/conf.o", b->build_dir);
	char *to = xasprintf("%s/kcmpm-conf.o", exe_dir);
	const char *argv[] = { "objcopy", "--redefine-sym", "main=kcmpm_conf_main", from, to,
			       NULL };
	struct spawn_result res;

	unlink(to);
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 60 }, &res) ||
	    res.status) {
		snprintf(err, errlen, "cannot rename conf.o's main with objcopy; see %s", log);
		free(to);
		to = NULL;
	}
	free(from);
	return to;
}

/* Compiles and links the resolver against b->build_dir's Kconfig objects, into exe_dir: all of
 * them, conf.o with its main renamed, popen/pclose wrapped for the $(shell) memo, and
 * conf_parse wrapped so that conf's main finds the tree parsed (kcmpm_resolve.c). */
static char *build_resolver(const struct build_ctx *b, const char *source, const char *exe_dir,
			    char *err, size_t errlen)
{
	char *exe = xasprintf("%s/kcmpm-resolve", exe_dir);
	char *log = xasprintf("%s/resolver-build.log", b->work_dir);
	char *inc1 = xasprintf("-I%s/scripts/kconfig", b->src);
	char *inc2 = xasprintf("-I%s/scripts/include", b->src);
	char *out = xasprintf("-o%s", exe), *conf = NULL, *memo = memo_source(source);
	const char **argv = NULL;
	struct spawn_result res;
	glob_t g;
	int ok = 0;

	unlink(log);
	unlink(exe);
	if (kconfig_objects(b, &g)) {
		snprintf(err, errlen, "no Kconfig objects in '%s/scripts/kconfig'", b->build_dir);
		goto out;
	}
	conf = renamed_conf(b, exe_dir, log, err, errlen);
	if (!conf)
		goto out_glob;
	argv = xcalloc(g.gl_pathc + 10, sizeof(*argv));
	{
		size_t k = 0;

		argv[k++] = "gcc";
		argv[k++] = "-O2";
		argv[k++] = "-Wl,--wrap=popen,--wrap=pclose,--wrap=conf_parse";
		argv[k++] = inc1;
		argv[k++] = inc2;
		argv[k++] = out;
		argv[k++] = source;
		argv[k++] = memo;
		argv[k++] = conf;
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (strcmp(strrchr(g.gl_pathv[i], '/') + 1, "conf.o"))
				argv[k++] = g.gl_pathv[i];
		argv[k] = NULL;
	}
	if (spawn_run(&(struct spawn_req){ .argv = argv, .log_path = log, .timeout = 300 }, &res))
		snprintf(err, errlen, "cannot run gcc: %s", strerror(errno));
	else if (res.status)
		snprintf(err, errlen, "cannot build the Kconfig resolver against %s (gcc status "
			 "%d); see %s", b->src, res.status, log);
	else
		ok = 1;
	free(argv);
out_glob:
	globfree(&g);
out:
	free(log);
	free(inc1);
	free(inc2);
	free(out);
	free(conf);
	free(memo);
	if (!ok) {
		free(exe);
		exe = NULL;
	}
	return exe;
}

char *resolver_link(const struct build_ctx *b, const char *source, char *err, size_t errlen)
{
	return build_resolver(b, source, b->build_dir, err, errlen);
}

/* The file of the $(shell) memo for this environment in dir: named by a hash of every variable
 * but srctree, which the commands that read the tree name in their own text. */
static char *memo_path(const char *dir, char *const *env)
{
	struct digest h;
	char hex[17];

	digest_init(&h);
	for (int i = 0; env[i]; i++)
		if (strncmp(env[i], "srctree=", 8))
			digest_add_string(&h, env[i]);
	digest_tag(&h, hex);
	return xasprintf("%s/shell-%s.memo", dir, hex);
}

/* env for a parse of the tree src: srctree set to it, the memo of memo_dir (if any) named in
 * KCMPM_SHELL_MEMO and the toolchain's memo (if any) in KCMPM_SHELL_MEMO_SHARED. */
static char **env_for(char *const *env, const char *src, const char *memo_dir,
		      const char *toolchain_memo)
{
	size_t n = 0, k;
	char **out;

	while (env[n])
		n++;
	out = xcalloc(n + 3, sizeof(*out));
	for (k = 0; k < n; k++)
		out[k] = strncmp(env[k], "srctree=", 8) ? xstrdup(env[k])
							: xasprintf("srctree=%s", src);
	if (memo_dir) {
		char *memo = memo_path(memo_dir, env);

		out[k++] = xasprintf("KCMPM_SHELL_MEMO=%s", memo);
		free(memo);
		if (toolchain_memo)
			out[k++] = xasprintf("KCMPM_SHELL_MEMO_SHARED=%s", toolchain_memo);
	}
	return out;
}

int resolver_kit_open(const struct build_ctx *kb, const char *source, struct resolver_kit *k,
		      char *err, size_t errlen)
{
	char *cmd = auto_conf_cmd(kb), *text = read_file(cmd, NULL);
	int rc = -1;

	*k = (struct resolver_kit){ .dir = xstrdup(kb->build_dir),
				    .toolchain_memo = kb->toolchain_memo ? xstrdup(kb->toolchain_memo)
								: NULL };
	k->env = text ? resolver_env_parse(text) : NULL;
	if (!k->env) {
		snprintf(err, errlen, "'%s' names no Kconfig environment", cmd);
	} else {
		/* what the kit's own allnoconfig recorded, before its environment was known */
		char *first = resolver_kit_first_memo(kb), *memo = memo_path(kb->build_dir, k->env);

		if (path_exists(first) && !path_exists(memo))
			rename(first, memo);
		free(first);
		free(memo);
		k->exe = xasprintf("%s/kcmpm-resolve", kb->build_dir);
		if (!path_exists(k->exe)) {
			free(k->exe);
			k->exe = build_resolver(kb, source, kb->build_dir, err, errlen);
		}
		rc = k->exe ? 0 : -1;
	}
	free(cmd);
	free(text);
	if (rc)
		resolver_kit_free(k);
	return rc;
}

char *resolver_kit_first_memo(const struct build_ctx *kb)
{
	return xasprintf("%s/shell-first.memo", kb->build_dir);
}

void resolver_kit_free(struct resolver_kit *k)
{
	free(k->dir);
	free(k->toolchain_memo);
	free(k->exe);
	free_strings(k->env);
	*k = (struct resolver_kit){ 0 };
}

/* Starts the session: exe run in the config directory b->build_dir with env. */
static int session_begin(const struct build_ctx *b, const char *exe, char *const *env,
			 struct resolver_session *s, char *err, size_t errlen)
{
	const char *argv[] = { exe, "--session", "Kconfig", NULL };

	s->log = xasprintf("%s/kconfig.log", b->work_dir);
	unlink(s->log);
	if (spawn_server_start(&(struct spawn_req){ .argv = argv, .log_path = s->log,
						     .cwd = b->build_dir,
						     .env = (const char *const *)env }, &s->server)) {
		snprintf(err, errlen, "cannot run '%s': %s", exe, strerror(errno));
		s->state = -1;
		return -1;
	}
	s->state = 1;
	return 0;
}

/* The group's session with its kit (b->kit, b->session), started at its first use. */
static int kit_session(const struct build_ctx *b, char *err, size_t errlen)
{
	char **env;
	int rc;

	if (b->session->state > 0)
		return 0;
	if (b->session->state < 0) {
		snprintf(err, errlen, "its Kconfig session has ended; see %s", b->session->log);
		return -1;
	}
	env = env_for(b->kit->env, b->src, b->kit->dir, b->kit->toolchain_memo);
	rc = session_begin(b, b->kit->exe, env, b->session, err, errlen);
	free_strings(env);
	return rc;
}

/* One request to a running session, and its answer: 0 when it is "<done> <out>", -1 with why
 * in err otherwise (its own "failed <out>: why", or that it ended: then it is stopped). */
static int session_ask(struct resolver_session *s, const char *request, const char *done,
		       const char *out, char *err, size_t errlen)
{
	char reply[1200], why[1000];

	/* the first answer waits for the Kconfig parse, with whatever probes the memo lacks */
	if (spawn_server_ask(&s->server, request, 600, reply, sizeof(reply))) {
		s->state = -1;
		snprintf(err, errlen, "the Kconfig session ended or did not answer; see %s", s->log);
		return -1;
	}
	if (resolver_answer(reply, done, out, "session", why, sizeof(why)) == 0)
		return 0;
	snprintf(err, errlen, "%s; see %s", why, s->log);
	return -1;
}

void resolver_session_end(struct resolver_session *s)
{
	/* at the end of its input it saves the $(shell) memo (what its parse ran) and exits */
	if (s->state > 0)
		spawn_server_finish(&s->server, 60);
	free(s->log);
	*s = (struct resolver_session){ 0 };
}

char *resolver_base(const struct build_ctx *b, const char *fragment_path, const char *base_path,
		    char *err, size_t errlen)
{
	char *request = xasprintf("base %s\t%s", fragment_path, base_path), *text = NULL;

	if (kit_session(b, err, errlen) == 0 &&
	    session_ask(b->session, request, "based", base_path, err, errlen) == 0 &&
	    !(text = read_file(base_path, NULL)))
		snprintf(err, errlen, "the Kconfig session wrote no '%s'; see %s", base_path,
			 b->session->log);
	free(request);
	return text;
}

/* Resolves each config in the session: its request written beside its output, then asked.
 * Returns -1 when the session ended (nothing after that is resolved); a failure of one config
 * is that resolution's. */
static int resolve_in_session(struct resolver_session *s, struct build_resolution *r, int n,
			      char *err, size_t errlen)
{
	for (int i = 0; i < n; i++) {
		char *in = xasprintf("%s.in", r[i].out_path), *request;
		int rc;

		r[i].text = NULL;
		r[i].err[0] = 0;
		unlink(r[i].out_path);
		if (write_file_atomic(in, r[i].requested, strlen(r[i].requested))) {
			snprintf(err, errlen, "cannot write '%s': %s", in, strerror(errno));
			free(in);
			return -1;
		}
		request = xasprintf("%s\t%s", in, r[i].out_path);
		rc = session_ask(s, request, "resolved", r[i].out_path, r[i].err, sizeof(r[i].err));
		free(request);
		free(in);
		if (rc && s->state < 0) {
			snprintf(err, errlen, "%s", r[i].err);
			return -1;
		}
		r[i].log_path = xstrdup(s->log);
		if (rc == 0 && !(r[i].text = read_file(r[i].out_path, NULL)))
			snprintf(r[i].err, sizeof(r[i].err), "Kconfig (kcmpm-resolve) wrote no '%s'; "
				 "see %s", r[i].out_path, s->log);
	}
	return 0;
}

int resolver_run(const struct build_ctx *b, const char *source, struct build_resolution *r,
		 int n, char *err, size_t errlen)
{
	struct resolver_session own = { 0 };
	char *cmd, *text, *exe;
	char **env;
	int rc = -1;

	if (b->kit)
		return kit_session(b, err, errlen) ? -1
						   : resolve_in_session(b->session, r, n, err, errlen);
	/* no kit: a resolver of the config directory's own, for this batch */
	cmd = auto_conf_cmd(b);
	text = read_file(cmd, NULL);
	env = text ? resolver_env_parse(text) : NULL;
	if (!env)
		snprintf(err, errlen, "'%s' names no Kconfig environment", cmd);
	else if ((exe = build_resolver(b, source, b->build_dir, err, errlen))) {
		if (session_begin(b, exe, env, &own, err, errlen) == 0)
			rc = resolve_in_session(&own, r, n, err, errlen);
		resolver_session_end(&own);
		free(exe);
	}
	free_strings(env);
	free(cmd);
	free(text);
	return rc;
}

int resolver_serve(const struct build_ctx *b, const char *source, const char *memo_dir,
		   struct spawn_server *s, char *err, size_t errlen)
{
	char *cmd = auto_conf_cmd(b), *text = read_file(cmd, NULL), *exe = NULL;
	char **parsed = text ? resolver_env_parse(text) : NULL;
	char **env = parsed ? env_for(parsed, b->src, memo_dir, NULL) : NULL;
	char *log = xasprintf("%s/syncconfig.log", b->work_dir);
	int rc = -1;

	free_strings(parsed);
	if (!env) {
		snprintf(err, errlen, "'%s' names no Kconfig environment", cmd);
	} else if ((exe = build_resolver(b, source, b->work_dir, err, errlen))) {
		const char *argv[] = { exe, "--serve", "Kconfig", NULL };

		rc = spawn_server_start(&(struct spawn_req){ .argv = argv, .log_path = log,
							     .cwd = b->build_dir,
							     .env = (const char *const *)env }, s);
		if (rc)
			snprintf(err, errlen, "cannot run '%s': %s", exe, strerror(errno));
	}
	free_strings(env);
	free(cmd);
	free(text);
	free(exe);
	free(log);
	return rc;
}

int resolver_sync(struct spawn_server *s, const char *build_dir, char *err, size_t errlen)
{
	char reply[600];

	/* the first answer waits for the Kconfig parse and its compiler probes */
	if (spawn_server_ask(s, build_dir, 600, reply, sizeof(reply))) {
		snprintf(err, errlen, "the Kconfig server ended or did not answer");
		return -1;
	}
	return resolver_answer(reply, "synced", build_dir, "server", err, errlen);
}

int resolver_answer(const char *reply, const char *done, const char *subject, const char *who,
		    char *err, size_t errlen)
{
	size_t dlen = strlen(done), slen = strlen(subject);
	const char *why = reply + 7 + slen;

	if (!strncmp(reply, done, dlen) && reply[dlen] == ' ' && !strcmp(reply + dlen + 1, subject))
		return 0;
	if (!strncmp(reply, "failed ", 7) && !strncmp(reply + 7, subject, slen) &&
	    (*why == ':' || *why == 0)) {
		why += strspn(why, ": ");
		snprintf(err, errlen, "%s", *why ? why : "failed, and said no more");
	} else {
		snprintf(err, errlen, "the Kconfig %s answered '%.200s'", who, reply);
	}
	return -1;
}
