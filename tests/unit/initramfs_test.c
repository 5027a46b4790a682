/* The initramfs writer: newc headers, names, alignment and trailer. */
#define _GNU_SOURCE
#include "check.h"
#include "initramfs.h"

#include <stdio.h>
#include <stdlib.h>

/* Walks the archive; returns the number of entries, checking each header. */
static int walk(const char *a, size_t len, char names[][32], unsigned *modes, unsigned *sizes)
{
	size_t off = 0;
	int n = 0;

	while (off + 110 <= len) {
		unsigned f[13];
		char hex[9] = "";

		CHECK(!strncmp(a + off, "070701", 6));
		for (int i = 0; i < 13; i++) {
			memcpy(hex, a + off + 6 + 8 * i, 8);
			f[i] = (unsigned)strtoul(hex, NULL, 16);
		}
		snprintf(names[n], 32, "%s", a + off + 110);
		modes[n] = f[1];
		sizes[n] = f[6];
		off += (110 + f[11] + 3) & ~3u;
		off += (f[6] + 3) & ~3u;
		CHECK(off % 4 == 0);
		if (!strcmp(names[n++], "TRAILER!!!"))
			break;
	}
	CHECK(off == len);
	return n;
}

TEST(initramfs_layout)
{
	static const char init[] = "\177ELF pretend program";
	char names[8][32];
	unsigned modes[8], sizes[8];
	size_t len;
	char *a = initramfs_build(init, sizeof(init) - 1, &len);
	int n = walk(a, len, names, modes, sizes);

	CHECK(n == 5);
	CHECK_STR(names[0], "dev");
	CHECK_STR(names[1], "dev/console");
	CHECK(modes[1] == (020000 | 0600));	/* character device */
	CHECK_STR(names[3], "init");
	CHECK(modes[3] == (0100000 | 0755));
	CHECK(sizes[3] == sizeof(init) - 1);
	CHECK_STR(names[4], "TRAILER!!!");
	CHECK(memmem(a, len, init, sizeof(init) - 1) != NULL);
	free(a);
}

TEST(initramfs_program_at_a_path)
{
	char names[8][32];
	unsigned modes[8], sizes[8];
	size_t len;
	char *a = initramfs_build_at("bin/sh", "ELF!", 4, &len);
	int n = walk(a, len, names, modes, sizes);

	CHECK(n == 6);
	CHECK_STR(names[3], "bin");
	CHECK(modes[3] == (040000 | 0755));
	CHECK_STR(names[4], "bin/sh");
	CHECK(modes[4] == (0100000 | 0755) && sizes[4] == 4);
	CHECK_STR(names[5], "TRAILER!!!");
	free(a);
}
