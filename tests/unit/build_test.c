/* Build helpers that need no kernel: the first error of a build log. */
#include "build.h"
#include "check.h"

TEST(build_first_error_prefers_compiler_errors)
{
	char buf[256];

	build_first_error("  CC      kernel/fork.o\n"
			  "/src/linux/kernel/kcmp.c:12:5: warning: unused variable 'x'\n"
			  "/src/linux/kernel/kcmp.c:140:9: error: 'foo' undeclared (first use)\n"
			  "make[2]: *** [scripts/Makefile.build:250: kernel/kcmp.o] Error 1\n"
			  "make: *** [Makefile:2012: .] Error 2\n", "/src/linux", buf, sizeof(buf));
	CHECK_STR(buf, "kernel/kcmp.c:140:9: error: 'foo' undeclared (first use)");
}

TEST(build_first_error_linker_and_fallbacks)
{
	char buf[256];

	build_first_error("  LD      vmlinux.o\nld: fs/eventpoll.o: in function `x':\n"
			  "eventpoll.c:(.text+0x1): undefined reference to `get_epoll_tfile_raw_ptr'\n"
			  "make: *** [Makefile:1] Error 2\n", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "eventpoll.c:(.text+0x1): undefined reference to `get_epoll_tfile_raw_ptr'");
	build_first_error("something\nmake: *** No rule to make target 'x'.  Stop.\n", "/t", buf,
			  sizeof(buf));
	CHECK_STR(buf, "make: *** No rule to make target 'x'.  Stop.");
	build_first_error("just a line\nkilled\n", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "killed");
	build_first_error("", "/t", buf, sizeof(buf));
	CHECK_STR(buf, "build failed with an empty log");
}
