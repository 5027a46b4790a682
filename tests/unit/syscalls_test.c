#define _GNU_SOURCE
/* The numbers the guest calls system calls by: a tree's table read as the arch's kernel reads
 * it (syscall.tbl lines of its ABIs, or a header's #defines), and the C library's number read
 * through the compiler's preprocessor. */
#include "check.h"
#include "syscalls.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

TEST(syscalls_table_lines_of_the_arches_abis)
{
	static const char tbl[] = "# comment kcmp\n"
				  "312\tcommon\tkcmp\t\t\tsys_kcmp\n"
				  "349\ti386\tkcmp\t\t\tsys_kcmp\n"
				  "354\tnospu\tpidfd\t\tsys_pidfd\n"
				  "434\tcommon\tpidfd_open\tsys_pidfd_open\n";
	char *x86_64[] = { "common", "64", NULL }, *i386[] = { "i386", NULL };
	char *none[] = { NULL };

	CHECK(syscalls_table_number(tbl, x86_64, "kcmp") == 312);
	CHECK(syscalls_table_number(tbl, i386, "kcmp") == 349);
	CHECK(syscalls_table_number(tbl, i386, "pidfd_open") == -1);	/* not of its ABI */
	CHECK(syscalls_table_number(tbl, x86_64, "pidfd") == -1);
	CHECK(syscalls_table_number(tbl, x86_64, "kcm") == -1);
	/* a header: the asm-generic numbering of arm64 and riscv64 */
	CHECK(syscalls_table_number("#define __NR_kcmpx 1\n#define __NR_kcmp 272\n", none,
				    "kcmp") == 272);
	CHECK(syscalls_table_number("#define __NR_kcmp (__NR_SYSCALL_BASE+378)\n", NULL,
				    "kcmp") == -1);	/* a name, not a number */
	CHECK(syscalls_table_number("#define __NR_kcmp (0+378)\n", NULL, "kcmp") == 378);
	CHECK(syscalls_table_number("", NULL, "kcmp") == -1);
}

/* The host's own C library: x86_64's kcmp is 312 (arch/x86/entry/syscalls/syscall_64.tbl). */
TEST(syscalls_libc_number_from_the_headers)
{
	char dir[] = "/tmp/kcmpm-syscalls-XXXXXX", err[512] = "";

	CHECK(mkdtemp(dir) != NULL);
#if defined(__x86_64__)
	CHECK(syscalls_libc_number("gcc", "kcmp", dir, err, sizeof(err)) == 312);
#endif
	CHECK(syscalls_libc_number("gcc", "no_such_call", dir, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "the C library's headers of 'gcc' give no number for SYS_no_such_call");
	CHECK(syscalls_libc_number("/nonexistent/gcc", "kcmp", dir, err, sizeof(err)) == -1);
	CHECK_CONTAINS(err, "cannot preprocess <sys/syscall.h> with '/nonexistent/gcc'");
	remove_tree(dir);
}
