/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * unit/contract-headers: every hardware contract header (include/sfab/
 * *.h) compiles alone, with its static inline helpers, in both worlds
 * that include it:
 *  - kernel-like: -D__KERNEL__ -nostdinc -ffreestanding against
 *    tests/unit/kstub (the kernel's <linux/types.h>, <linux/bitfield.h>,
 *    ... as sfab_types.h's kernel branch uses them; no libc header), with
 *    the kernel's -Wdeclaration-after-statement and prototype warnings;
 *  - user space (engine, provider, tools): -std=c11 -pedantic with
 *    -Wshadow, -Wmissing-prototypes and -Wcast-qual, as the provider and
 *    the engine build.
 * Both -Werror.  And each header is listed here, so a new one is not
 * left out by accident: a header missing from the list fails the test.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char *const headers[] = {
	"sfab_accel.h", "sfab_admin.h", "sfab_fw.h", "sfab_queue.h",
	"sfab_regs.h", "sfab_ring.h", "sfab_types.h", "sfab_wire.h",
};
#define NHEADERS (sizeof(headers) / sizeof(headers[0]))

static const char *cc(void)
{
	const char *c = getenv("CC");

	return c && *c ? c : "cc";
}

/* compile "#include <sfab/@h>" alone with @flags; 0 when it built clean */
static int compile(const char *h, const char *flags)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "echo '#include <sfab/%s>' | %s %s -Werror -I%s/include "
		 "-fsyntax-only -x c - >&2", h, cc(), flags, SFAB_TOP);
	return system(cmd);
}

#define KERNEL_FLAGS "-std=gnu11 -D__KERNEL__ -nostdinc -ffreestanding " \
	"-Wall -Wextra -Wno-unused-parameter -Wmissing-prototypes " \
	"-Wstrict-prototypes -Wdeclaration-after-statement " \
	"-I" SFAB_TOP "/tests/unit/kstub"
#define USER_FLAGS "-std=c11 -D_DEFAULT_SOURCE -pedantic -Wall -Wextra " \
	"-Wshadow -Wmissing-prototypes -Wstrict-prototypes -Wcast-qual " \
	"-Wwrite-strings"

/* every header in one world */
static void compile_all(const char *world, const char *flags)
{
	size_t i;

	for (i = 0; i < NHEADERS; i++) {
		int rc = compile(headers[i], flags);

		if (rc)
			fprintf(stderr, "%s: %s does not compile\n", world,
				headers[i]);
		CHECK_EQ(rc, 0);
	}
}

TEST(kernel_like)
{
	compile_all("kernel-like", KERNEL_FLAGS);
}

TEST(user_space)
{
	compile_all("user space", USER_FLAGS);
}

/* the world is strict enough to catch a libc type in a kernel header */
TEST(kernel_like_catches_libc)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd),
		 "printf '#include <sfab/sfab_types.h>\\nstatic uint32_t x;\\n' | "
		 "%s %s -Werror -I%s/include -fsyntax-only -x c - 2>/dev/null",
		 cc(), KERNEL_FLAGS, SFAB_TOP);
	CHECK(system(cmd) != 0);
}

/* every include/sfab header is in the list above */
TEST(all_listed)
{
	DIR *d = opendir(SFAB_TOP "/include/sfab");
	struct dirent *de;
	size_t i, n = 0;

	REQUIRE(d);
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);
		int found = 0;

		if (len < 3 || strcmp(de->d_name + len - 2, ".h"))
			continue;
		n++;
		for (i = 0; i < NHEADERS; i++)
			found |= !strcmp(de->d_name, headers[i]);
		if (!found)
			fprintf(stderr, "%s is not in the list\n", de->d_name);
		CHECK(found);
	}
	closedir(d);
	CHECK_EQ(n, NHEADERS);
}
