// SPDX-License-Identifier: GPL-2.0
/*
 * membarrier_init: the /init of the membarrier question's guests.
 *
 * It checks that membarrier() and rseq() (whose Kconfig symbol selects MEMBARRIER) exist
 * exactly as predicted (KCMPM_EXPECT_membarrier, KCMPM_EXPECT_rseq: works or enosys) and, when
 * membarrier() does, that the commands a library relies on behave as
 * kernel/sched/membarrier.c says: QUERY lists GLOBAL and the private expedited commands,
 * GLOBAL works, PRIVATE_EXPEDITED is EPERM before this process registers and works after, and
 * an unknown command or flag is EINVAL. It reports "# kcmp-matrix observed: membarrier=<works|
 * enosys|errno-N> rseq=<works|enosys>" and powers the guest off (guest-tests/guest_ktap.h: the shared protocol).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../guest-tests/guest_ktap.h"

#define GUEST_TEST_LIST "membarrier_init_tests.h"
#include "../../guest-tests/guest_tests.h"

static struct guest_call sys_membarrier(int cmd, unsigned int flags)
{
	struct guest_call c;

	errno = 0;
	c.ret = syscall(SYS_membarrier, cmd, flags, 0);
	c.err = c.ret < 0 ? errno : 0;
	return c;
}

static void expect_ret(enum test_id id, struct guest_call c, long want)
{
	guest_report(test_names[id], c.ret == want, "returned %ld (errno %d %s), expected %ld",
		     c.ret, c.err, strerror(c.err), want);
}

static void expect_errno(enum test_id id, struct guest_call c, int want)
{
	guest_report(test_names[id], c.ret == -1 && c.err == want,
		     "returned %ld (errno %d %s), expected errno %d %s", c.ret, c.err,
		     strerror(c.err), want, strerror(want));
}

static void test_commands(struct guest_call query)
{
	long want = MEMBARRIER_CMD_GLOBAL | MEMBARRIER_CMD_PRIVATE_EXPEDITED |
		    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED;

	guest_report(test_names[T_membarrier_query_lists_the_commands],
		     query.ret >= 0 && (query.ret & want) == want,
		     "QUERY returned %#lx (errno %d), expected the bits %#lx", query.ret, query.err,
		     want);
	expect_ret(T_membarrier_global, sys_membarrier(MEMBARRIER_CMD_GLOBAL, 0), 0);
	expect_errno(T_membarrier_private_expedited_unregistered_eperm,
		     sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), EPERM);
	expect_ret(T_membarrier_register_private_expedited,
		   sys_membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0), 0);
	expect_ret(T_membarrier_private_expedited,
		   sys_membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0), 0);
	expect_errno(T_membarrier_einval_unknown_command, sys_membarrier(1 << 30, 0), EINVAL);
	expect_errno(T_membarrier_einval_flags, sys_membarrier(MEMBARRIER_CMD_QUERY, 1), EINVAL);
}

/* rseq() with no area: EINVAL (or EBUSY: glibc registered one for this thread) when the
 * system call exists, ENOSYS when it does not. */
static int have_rseq(void)
{
	errno = 0;
	return !(syscall(SYS_rseq, NULL, 0, 0, 0) == -1 && errno == ENOSYS);
}

int main(void)
{
	int want = guest_yes_no("KCMPM_EXPECT_membarrier", "works", "enosys");
	int want_rseq = guest_yes_no("KCMPM_EXPECT_rseq", "works", "enosys");
	struct guest_call query;
	char word[32], selftest[16];
	int rseq;

	setvbuf(stdout, NULL, _IOLBF, 0);
	guest_start(NTESTS);
	rseq = have_rseq();
	guest_identity(test_names[T_kernel_identity]);
	query = sys_membarrier(MEMBARRIER_CMD_QUERY, 0);
	guest_presence(test_names[T_membarrier_present], want,
		       !(query.ret == -1 && query.err == ENOSYS));
	guest_presence(test_names[T_rseq_present], want_rseq, rseq);
	if (query.ret == -1 && query.err == ENOSYS) {
		for (int i = T_membarrier_query_lists_the_commands; i < NTESTS; i++)
			guest_skip(test_names[i], "membarrier", "enosys", "membarrier() absent");
	} else {
		test_commands(query);
	}
	guest_selftest(selftest, sizeof(selftest));
	guest_describe(word, sizeof(word), query, "works", 0, NULL);
	printf("# kcmp-matrix observed: membarrier=%s rseq=%s selftest=%s\n", word,
	       rseq ? "works" : "enosys", selftest);
	return guest_finish(NTESTS);
}
