/* e2e_interfaces: what people and tools read: shards merged, the page in a browser, KTAP in kunit.py,
 * make cell and make shell, diff, and KCIDB against its official schema. See e2e.h. */
#include "e2e.h"

/* Drops the one line of a results file that holds the run's own figures (wall time, the
 * harness's memory), which no two runs share. */
static char *without_line(char *text, const char *start)
{
	char *at = text ? strstr(text, start) : NULL, *end = at ? strchr(at, '\n') : NULL;

	if (at && end)
		memmove(at, end + 1, strlen(end + 1) + 1);
	return text;
}

/* Reads a PNG's width and height from its IHDR chunk; 0 when it is not a PNG. */
static void png_size(const char *path, unsigned *w, unsigned *h)
{
	size_t len;
	unsigned char *p = (unsigned char *)read_file(path, &len);

	*w = *h = 0;
	if (p && len > 24 && !memcmp(p, "\x89PNG\r\n\x1a\n", 8) && !memcmp(p + 12, "IHDR", 4)) {
		*w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
		*h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
	}
	free(p);
}

/* make shell's busybox on arch: the guest's shell computes 6*7, so the answer can only come
 * from a shell that ran in the guest. Like a person at the console, the input is typed once the
 * shell has said it is up: bytes that reach a serial port before its driver and the shell are
 * ready are lost (arm64's PL011 then takes no more). Exiting the shell panics the kernel, and
 * QEMU ends. */
static int shell_computes(int answer, const char *arch, const char *busybox)
{
	char *want = xasprintf("kcmp-shell-%d", answer);
	char *console = xasprintf("%s/shell-%s.console", scratch, arch);
	char *script = xasprintf(
		"wait_for() { n=0; until grep -q \"$1\" %s 2>/dev/null; do sleep 0.2; "
		"n=$((n+1)); [ $n -lt 900 ] || return 1; done; }\n"
		"{ wait_for 'job control turned off' && sleep 1 && "
		"printf 'echo kcmp-shell-$((6*7)); exit\\n' && wait_for 'Kernel panic'; } | "
		"%s --cache %s --results %s/shell-%s --trees 6.1 --variants v3 --arch %s --only %s --shell "
		"--busybox %s > %s 2>&1\ncat %s\n",
		console, harness, cache, scratch, arch, arch, OFF, busybox, console, console);
	char *name = xasprintf("shell-%s", arch), *out;
	int status, ok;

	out = tool_run(name, (const char *[]){ "sh", "-c", script, NULL }, &status);
	ok = out && strstr(out, "with a busybox shell on the console") && strstr(out, want);
	if (!ok)
		printf("# %s shell: no '%s' in its console\n", arch, want);
	free(out);
	free(name);
	free(script);
	free(console);
	free(want);
	return ok;
}

/* The exit status a finished run had, from its matrix.json: 1 when a cell did not pass. */
static int earlier_run_status(const char *json_path)
{
	char *text = read_file(json_path, NULL);
	int status = !text ? -1 : count(text, "\"status\": \"") ==
					   count(text, "\"status\": \"PASS\"") +
					   count(text, "\"status\": \"XFAIL\"") ? 0 : 1;

	free(text);
	return status;
}

/* Validates a run's kcidb.json against KCIDB's schema (../shared/kcidb) and its links with
 * tests/kcidb_check.py; returns its one line (free it), or NULL when it is not valid. */
static char *kcidb_check(const struct run *r, const char *schema)
{
	char *file = xasprintf("%s/kcidb.json", r->results), *out;
	int status;

	out = tool_run("kcidb-check", (const char *[]){ "/usr/bin/python3", "tests/kcidb_check.py",
							schema, file, NULL }, &status);
	printf("# kcidb %s: %s", r->results, out ? out : "(no output)\n");
	free(file);
	if (status) {
		free(out);
		return NULL;
	}
	return out;
}

/* Three shards of the ten cells, merged, give the results of one unsharded run: the same
 * table, TSV, KTAP, JUnit, cells in the JSON, page grid and cell files. */
/* Shard 2/3 of FIVE (x86_64's last two cells and arm64's first) stopped by an error after
 * its two x86_64 cells, as a runner's full disk stops it: a partial matrix.json. Merged with
 * the whole shards 1 and 3, its unfinished cell is not run, named with its shard, and the
 * merge exits 1; nothing of it passes. */
static void merged_with_a_shard_stopped_midway(const struct run *first, const struct run *third)
{
	char *blocker = xasprintf("%s/shard-2-midway/cells/6.1/v3/arm64", scratch);
	struct run stopped, merged;

	mkdir_p(blocker);
	remove_tree(blocker);
	CHECK(write_file_atomic(blocker, "not a directory\n", 16) == 0);
	stopped = harness_run("shard-2-midway", (const char *[]){ "--only", FIVE, "--shard", "2/3",
								   NULL });
	CHECK(stopped.status == 2);
	merged = harness_run("merged-midway", (const char *[]){ "merge", first->results,
								 stopped.results, third->results,
								 NULL });
	CHECK(merged.status == 1);
	CHECK_CONTAINS(merged.out, "PARTIAL RUN, shard 2/3 stopped after 2 of 3 cells: ");
	CHECK_CONTAINS(merged.out, "10 cells: 9 PASS 1 not run");
	CHECK(count(merged.tsv, "\tPENDING\t") == 1);
	expect_cell(&merged, "arm64", OFF, "PENDING\t-\t-\t-\t-----\tnot run: shard 2/3 stopped "
		    "before it");
	/* and it reads back, as the next night's merge and diff read it as the previous one */
	{
		char *json = xasprintf("%s/matrix.json", merged.results);
		struct run diff = harness_run("merged-midway-diff", (const char *[]){ "diff", json,
										       json, NULL });

		CHECK(diff.status == 0);
		run_free(&diff);
		free(json);
	}
	run_free(&merged);
	run_free(&stopped);
	free(blocker);
}

TEST(e2e_shards_merge_to_the_unsharded_run)
{
	struct run whole = harness_run("whole", (const char *[]){ "--only", FIVE, NULL });
	struct run shard[3], merged, missing;
	static const char *const files[] = { "matrix.md", "matrix.tsv", "matrix.ktap", "junit.xml",
					     "matrix.json", "index.html" };

	for (int k = 0; k < 3; k++) {
		char *name = xasprintf("shard-%d", k + 1), *which = xasprintf("%d/3", k + 1);

		shard[k] = harness_run(name, (const char *[]){ "--only", FIVE, "--shard", which, NULL });
		CHECK(shard[k].status == 0);
		free(name);
		free(which);
	}
	CHECK(shard[0].tsv && !strstr(shard[0].tsv, "arm64"));	/* contiguous: x86_64 first */
	merged = harness_run("merged", (const char *[]){ "merge", shard[0].results, shard[1].results,
							  shard[2].results, NULL });
	CHECK(merged.status == 0);
	CHECK_CONTAINS(merged.out, "10 cells: 10 PASS");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		/* the run's own figures differ: its wall time and memory (a line each) */
		char *a = without_line(without_line(without_line(results_file(&whole, files[i]),
								 "<p id=\"figures\">"),
						    "\"seconds\":"), "\"harness_max_rss_kib\":");
		char *b = without_line(without_line(without_line(results_file(&merged, files[i]),
								 "<p id=\"figures\">"),
						    "\"seconds\":"), "\"harness_max_rss_kib\":");

		if (!a || !b || strcmp(a, b))
			printf("# %s differs between the unsharded and the merged run\n", files[i]);
		CHECK(a && b && !strcmp(a, b));
		free(a);
		free(b);
	}
	{
		char *a = xasprintf("%s/cells", whole.results), *b = xasprintf("%s/cells", merged.results);
		char diff[4096];

		CHECK(same_trees(a, b, diff, sizeof(diff)));
		free(a);
		free(b);
	}
	/* a shard whose runner died: its cells are not run, in every output, and the merge
	 * fails; the cells of the shards that reported are all there */
	missing = harness_run("merged-missing", (const char *[]){ "merge", shard[0].results,
								   shard[2].results, NULL });
	CHECK(missing.status == 1);
	CHECK_CONTAINS(missing.out, "PARTIAL RUN, 2 of 3 shards reported; 3 cells did not run");
	CHECK_CONTAINS(missing.out, "10 cells: 7 PASS 3 not run");
	CHECK(count(missing.tsv, "\tPENDING\t") == 3 && count(missing.tsv, "\tPASS\t") == 7);
	CHECK(count(missing.tsv, "not run: shard 2/3 did not report") == 3);
	{
		char *json = results_file(&missing, "matrix.json");
		char *page = results_file(&missing, "index.html");

		CHECK(count(json, "\"status\": \"PENDING\"") == 3);
		CHECK_CONTAINS(json, "\"partial\": \"2 of 3 shards reported");
		CHECK_CONTAINS(page, "not run");
		free(page);
		free(json);
	}
	run_free(&missing);
	merged_with_a_shard_stopped_midway(&shard[0], &shard[2]);
	run_free(&merged);
	for (int k = 0; k < 3; k++)
		run_free(&shard[k]);
	run_free(&whole);
}

/* The nightly workflow is YAML GitHub takes, and every action, condition and expression of
 * its shard and merge jobs is one make nightly-check plays (scripts/nightly-check --lint): a
 * workflow that nightly-check could not run is caught here, not on a night. A step name with
 * ': ' in it, as one once had, is no YAML. */
TEST(e2e_nightly_workflow_is_one_nightly_check_runs)
{
	char *bad = xasprintf("%s/nightly-bad.yml", scratch), *text, *out;
	int status;

	out = tool_run("nightly-lint", (const char *[]){ "scripts/nightly-check", "--lint",
							 ".github/workflows/nightly.yml", NULL },
		       &status);
	CHECK(status == 0);
	CHECK_CONTAINS(out, "nightly-check: job shard: ");
	CHECK_CONTAINS(out, "nightly-check: job merge: ");
	free(out);
	text = read_file(".github/workflows/nightly.yml", NULL);
	CHECK(text && write_file_atomic(bad, text, strlen(text)) == 0);
	edit_file(bad, "      - name: The previous night's results\n",
		  "      - name: The previous night's results: kept\n");
	out = tool_run("nightly-lint-bad", (const char *[]){ "scripts/nightly-check", "--lint", bad,
							     NULL }, &status);
	CHECK(status == 2);
	CHECK_CONTAINS(out, "the workflow is no YAML");
	free(out);
	free(text);
	free(bad);
}

/* index.html in a real browser: headless Chromium renders it (a screenshot) and its DOM holds
 * the grid: ten cells, a known verdict in a known place, links to the cell's files. */
TEST(e2e_page_in_a_browser)
{
	struct run r = harness_run("page", (const char *[]){ "--only", FIVE, NULL });
	char *page = xasprintf("file://%s/index.html", r.results);
	char *shot = xasprintf("%s/page.png", scratch), *profile = xasprintf("--user-data-dir=%s/chromium", scratch);
	char *shot_arg = xasprintf("--screenshot=%s", shot), *dom, *out, *cell;
	const char *dump[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu", profile,
			       "--dump-dom", page, NULL };
	const char *png[] = { "chromium", "--headless", "--no-sandbox", "--disable-gpu", profile,
			      "--window-size=1400,900", shot_arg, page, NULL };
	unsigned w, h;
	int status;

	CHECK(r.status == 0);
	expect_valid_junit(&r, 0);
	dom = tool_run("chromium-dom", dump, &status);
	CHECK(status == 0);
	CHECK(count(dom, "<td class=\"cell ") == 10);
	CHECK(count(dom, "data-status=\"PASS\"") == 10);
	cell = dom ? strstr(dom, "id=\"6.1/v3/arm64/" OFF "\"") : NULL;
	CHECK(cell != NULL);
	/* the cell's own text: its verdict, kcmp() state and link to its console log */
	if (cell) {
		char *end = strstr(cell, "</td>");

		if (end)
			*end = 0;
		CHECK_CONTAINS(cell, "<b>PASS</b> kcmp=enosys");
		CHECK_CONTAINS(cell, "href=\"cells/6.1/v3/arm64/" OFF "/serial.log\"");
		CHECK_CONTAINS(cell, "KCMP=n: ");
	}
	CHECK_CONTAINS(dom, "10 cells: 10 PASS");
	out = tool_run("chromium-png", png, &status);
	CHECK(status == 0);
	png_size(shot, &w, &h);
	printf("# screenshot %s: %ux%u\n", shot, w, h);
	CHECK(w == 1400 && h == 900);
	free(out);
	free(dom);
	free(shot_arg);
	free(profile);
	free(shot);
	free(page);
	run_free(&r);
}

/* matrix.ktap is KTAP the kernel's own tools read: kunit.py parse (from the tree) counts the
 * cells as tests and their verdicts. */
TEST(e2e_ktap_summary_reads_in_kunit_tool)
{
	struct run r = harness_run("ktap", (const char *[]){ "--only", FIVE, NULL });
	char *kunit = xasprintf("%s/src/linux-source-6.1/tools/testing/kunit/kunit.py", cache);
	char *ktap = xasprintf("%s/matrix.ktap", r.results), *out;
	int status;

	CHECK(r.status == 0);
	out = tool_run("kunit-parse", (const char *[]){ "python3", kunit, "parse", ktap, NULL },
		       &status);
	CHECK(status == 0);
	CHECK_CONTAINS(out, "[PASSED] 6.1 arm64 v3 " VIA_DRM);
	CHECK_CONTAINS(out, "Ran 10 tests: passed: 10");
	free(out);
	free(ktap);
	free(kunit);
	run_free(&r);
}

/* make cell: one cell named in full, with its reproducer; a partial name is refused. make
 * shell: that cell's kernel with busybox as /bin/sh, driven through the serial console. */
TEST(e2e_one_cell_and_its_shell)
{
	/* booted afresh (--force boot): a reproducer is written from a fresh boot as from a
	 * cached one */
	struct run one = harness_run("one-cell", (const char *[]){ "--arch", "x86_64", "--only", OFF,
								   "--single", "--force", "boot",
								   NULL });
	struct run many = harness_run("many-cells", (const char *[]){ "--arch", "x86_64", "--only",
								      "EXPERT=y", "--single", NULL });
	struct run arm = harness_run("arm-shell", (const char *[]){ "--arch", "arm64", "--only", OFF,
								    "--shell", NULL });
	char *repro = xasprintf("%s/cells/6.1/v3/x86_64/" OFF "/reproduce.sh", one.results);
	char *text = read_file(repro, NULL), *busybox;
	int status;

	CHECK(one.status == 0);
	CHECK_CONTAINS(one.out, "1 cells: 1 PASS");
	CHECK_CONTAINS(text, "make cell TREES=6.1 ARCH=x86_64 VARIANT=v3 COMBO=" OFF "\n");
	CHECK_CONTAINS(text, "olddefconfig\nmake -C ");
	CHECK_CONTAINS(text, "qemu-system-x86_64 ");
	CHECK_CONTAINS(text, "/arch/x86/boot/bzImage -initrd ");
	/* make cell COMBO=...,KCMP=unset: the term makes KCMP take unset even in a run whose
	 * --unset gives it to nothing, and the cell shares NO_KCMP's kernel and boot */
	{
		struct run unset = harness_run("one-unset-cell", (const char *[]){
			"--arch", "x86_64", "--only", UNSET_KCMP, "--single", "--unset", "none",
			NULL });

		CHECK(unset.status == 0);
		CHECK_CONTAINS(unset.out, "1 cells: 1 PASS");
		expect_cell(&unset, "x86_64", UNSET_KCMP, "PASS\tenosys\tworks\tenosys\tynnny\t");
		run_free(&unset);
	}
	CHECK(many.status == 2);
	/* DRM takes n, m, y; KCMP n, y, unset */
	CHECK_CONTAINS(many.out, "the filters select 36 cells, not one");
	CHECK(arm.status == 2);
	CHECK_CONTAINS(arm.out, "no static busybox for arm64");
	/* the native busybox, then arm64's from Debian's archive */
	CHECK(shell_computes(42, "x86_64", "/bin/busybox"));
	setenv("CACHE", cache, 1);
	busybox = tool_run("fetch-busybox", (const char *[]){ "scripts/fetch-busybox", "arm64", NULL },
			   &status);
	unsetenv("CACHE");
	CHECK(status == 0 && busybox);
	if (status == 0 && busybox) {
		*strchrnul(busybox, '\n') = 0;
		CHECK(shell_computes(42, "arm64", busybox));
	}
	free(busybox);
	free(text);
	free(repro);
	run_free(&arm);
	run_free(&many);
	run_free(&one);
}

/* diff: a cell that newly fails leads the report and the exit status is 1; the other way
 * round it is a fix; --previous puts the same on the page. */
TEST(e2e_diff_between_runs)
{
	const char *only[] = { "--arch", "x86_64", "--only", OFF " " VIA_EXPERT, NULL };
	struct run good = harness_run("diff-good", only);
	char *earlier = xasprintf("%s/broken-kernel/matrix.json", scratch);
	/* the broken kernel's run from e2e_broken_kernel_fails_observed_layer, when it ran: its
	 * status is read back from its matrix.json (1 when some cell did not pass), not assumed */
	char *patches = path_exists(earlier) ? NULL : broken_series();
	struct run bad = !patches
				 ? (struct run){ .status = earlier_run_status(earlier),
						 .results = xasprintf("%s/broken-kernel", scratch) }
				 : harness_run("diff-bad", (const char *[]){ "--patches", patches, "--arch",
									     "x86_64", "--only", OFF " " VIA_EXPERT,
									     NULL });
	char *good_json = xasprintf("%s/matrix.json", good.results);
	char *bad_json = xasprintf("%s/matrix.json", bad.results);
	struct run worse = harness_run("diff-worse", (const char *[]){ "diff", good_json, bad_json, NULL });
	struct run better = harness_run("diff-better", (const char *[]){ "diff", bad_json, good_json, NULL });
	struct run page = harness_run("diff-page", (const char *[]){ "--arch", "x86_64", "--only",
								     OFF " " VIA_EXPERT, "--previous",
								     bad_json, NULL });
	char *html = results_file(&page, "index.html");

	CHECK(good.status == 0 && bad.status == 1);
	CHECK(worse.status == 1);
	/* the broken kernel is 6.1's v3 with one more patch: the same cells of the same tree */
	CHECK_CONTAINS(worse.out, "2 cells in both runs: 1 new failures, 0 fixed, 1 observed changes, "
		       "0 build changes\nNew failures (1):\n  6.1 x86_64 v3 " VIA_EXPERT ": PASS -> FAIL: "
		       "observed: kcmp=enosys");
	CHECK_CONTAINS(worse.out, "Observed state changed (1):\n  6.1 x86_64 v3 " VIA_EXPERT
		       ": kcmp=works -> kcmp=enosys, epoll_tfd=works -> epoll_tfd=enosys\n");
	CHECK(better.status == 0);
	CHECK_CONTAINS(better.out, "Fixed (1):\n  6.1 x86_64 v3 " VIA_EXPERT ": FAIL -> PASS");
	CHECK_CONTAINS(html, "<pre id=\"changes\">2 cells in both runs: 0 new failures, 1 fixed");
	free(html);
	run_free(&page);
	run_free(&better);
	run_free(&worse);
	free(good_json);
	free(bad_json);
	run_free(&bad);
	run_free(&good);
	free(earlier);
	free(patches);
}

/* results/kcidb.json is KCIDB I/O data (schema 5.3) with its links whole, for runs whose
 * cells are PASS, FAIL, XFAIL and BOOT_FAIL: each harness status maps to the KCIDB status the
 * README's table gives, v1's known build failure is an issue with an incident on its build,
 * and the same inputs give the same ids. Without ../shared/kcidb the test says so and skips. */
TEST(e2e_kcidb_json_is_valid_kcidb)
{
	static const char schema[] = "../shared/kcidb/kcidb-v5.3.schema.json";
	char *health = mutant_series("kernel-patch", "patches-kcidb-health", "v3", health_edits);
	char *broken = broken_series_named("patches-kcidb-broken");
	char *state = xasprintf("%s/kcidb.state", scratch), *a_line, *b_line, *again_line;
	/* the third combination resolves to OFF's config: in v1 two XFAIL cells of one kernel,
	 * whose known build failure is one incident on that build */
	const char *a_args[] = { "--patches", health, "--variants", "v1,v3", "--arch", "x86_64",
				 "--only", OFF " " VIA_EXPERT " EXPERT=n,KCMP=y,CHECKPOINT_RESTORE=n,"
				 "DRM=n,EPOLL=y", "--qemu", "tests/fakes/qemu-append", "--force",
				 "boot", NULL };
	const char *b_args[] = { "--patches", broken, "--arch", "x86_64", "--only",
				 OFF " " VIA_EXPERT, NULL };
	struct run a, b, again;
	char *ids_a, *ids_again;

	if (!path_exists(schema)) {
		check_skip("../shared/kcidb is not here: kcidb.json not validated");
		free(state);
		free(broken);
		free(health);
		return;
	}
	setenv("KCMPM_FAKE_STATE", state, 1);
	setenv("KCMPM_FAKE_APPEND_1", "kcmpm_mutant=panic", 1);
	setenv("KCMPM_FAKE_APPEND_2", "kcmpm_mutant=panic", 1);
	setenv("KCMPM_REAL_QEMU", "qemu-system-x86_64", 1);
	a = harness_run("kcidb-a", a_args);
	unlink(state);
	again = harness_run("kcidb-a-again", a_args);
	unsetenv("KCMPM_FAKE_STATE");
	unsetenv("KCMPM_FAKE_APPEND_1");
	unsetenv("KCMPM_FAKE_APPEND_2");
	unsetenv("KCMPM_REAL_QEMU");
	b = harness_run("kcidb-b", b_args);
	expect_variant_cell(&a, "v3", "x86_64", VIA_EXPERT, "BOOT_FAIL\t");
	expect_variant_cell(&a, "v1", "x86_64", OFF, "XFAIL\t");
	expect_variant_cell(&a, "v3", "x86_64", OFF, "PASS\t");
	expect_cell(&b, "x86_64", VIA_EXPERT, "FAIL\t");
	a_line = kcidb_check(&a, schema);
	b_line = kcidb_check(&b, schema);
	again_line = kcidb_check(&again, schema);
	CHECK(a_line && b_line && again_line);
	CHECK_CONTAINS(a_line, "1 issues 2 incidents");
	CHECK_CONTAINS(a_line, "BOOT_FAIL=FAIL");
	CHECK_CONTAINS(a_line, "PASS=PASS");
	CHECK_CONTAINS(a_line, "XFAIL=FAIL");
	CHECK_CONTAINS(b_line, "FAIL=FAIL");
	{
		char *doc = results_file(&a, "kcidb.json");

		/* the known build failure's incident is on the build, which FAILed */
		CHECK_CONTAINS(doc, "\"issue_version\": 1, \"build_id\": \"kcmp_matrix:");
		CHECK_CONTAINS(doc, "\"status\": \"FAIL\", \"log_excerpt\": ");
		CHECK_CONTAINS(doc, "\"path\": \"kcmp_matrix.guest.kcmp_present\"");
		free(doc);
	}
	/* the same inputs, the same ids: only times and durations may differ */
	ids_a = results_file(&a, "kcidb.json");
	ids_again = results_file(&again, "kcidb.json");
	CHECK(ids_a && ids_again && count(ids_a, "\"id\": \"kcmp_matrix:") ==
	      count(ids_again, "\"id\": \"kcmp_matrix:"));
	for (const char *p = ids_a; p && (p = strstr(p, "\"id\": \"")); p++) {
		char id[64] = "";

		sscanf(p, "\"id\": \"%63[^\"]", id);
		if (!strstr(ids_again, id))
			printf("# id %s of the first run is not in the second\n", id);
		CHECK(strstr(ids_again, id) != NULL);
	}
	free(ids_again);
	free(ids_a);
	free(again_line);
	free(b_line);
	free(a_line);
	run_free(&again);
	run_free(&b);
	run_free(&a);
	free(state);
	free(broken);
	free(health);
}
