/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny host unit-test harness.
 *
 *	TEST(name) { CHECK(x == 1); CHECK_EQ(a, b); }
 *
 * Tests register themselves (constructors, run in definition order); the
 * harness' main() runs them all and returns non-zero when any check
 * failed.  Failures are printed to stderr with file:line; a passing run
 * prints nothing.  REQUIRE() is CHECK() that also leaves the test.
 * Include this header from exactly one source file per test program.
 */
#ifndef SFAB_TEST_HARNESS_H
#define SFAB_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>

#define HARNESS_MAX_TESTS 256

struct harness_test {
	const char *name;
	void (*fn)(void);
};

static struct harness_test harness_tests[HARNESS_MAX_TESTS];
static int harness_ntests;
static const char *harness_current = "?";
static unsigned long harness_checks, harness_failures;
static unsigned long harness_test_failures;

static inline void harness_register(const char *name, void (*fn)(void))
{
	if (harness_ntests >= HARNESS_MAX_TESTS) {
		fprintf(stderr, "harness: too many tests (%s)\n", name);
		exit(2);
	}
	harness_tests[harness_ntests].name = name;
	harness_tests[harness_ntests].fn = fn;
	harness_ntests++;
}

static inline void harness_fail(const char *file, int line, const char *what)
{
	harness_failures++;
	harness_test_failures++;
	fprintf(stderr, "FAIL %s: %s:%d: %s\n", harness_current, file, line, what);
}

static inline void harness_fail_eq(const char *file, int line, const char *a_str,
			    const char *b_str, unsigned long long a,
			    unsigned long long b)
{
	harness_failures++;
	harness_test_failures++;
	fprintf(stderr, "FAIL %s: %s:%d: %s == %s (0x%llx != 0x%llx)\n",
		harness_current, file, line, a_str, b_str, a, b);
}

#define TEST(name)							\
	static void test_##name(void);					\
	__attribute__((constructor)) static void register_##name(void)	\
	{								\
		harness_register(#name, test_##name);			\
	}								\
	static void test_##name(void)

#define CHECK(cond)							\
	do {								\
		harness_checks++;					\
		if (!(cond))						\
			harness_fail(__FILE__, __LINE__, #cond);	\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long a_ = (unsigned long long)(a);	\
		unsigned long long b_ = (unsigned long long)(b);	\
		harness_checks++;					\
		if (a_ != b_)						\
			harness_fail_eq(__FILE__, __LINE__, #a, #b, a_, b_); \
	} while (0)

#define REQUIRE(cond)							\
	do {								\
		harness_checks++;					\
		if (!(cond)) {						\
			harness_fail(__FILE__, __LINE__, #cond);	\
			return;						\
		}							\
	} while (0)

int main(void)
{
	int i;

	for (i = 0; i < harness_ntests; i++) {
		harness_current = harness_tests[i].name;
		harness_test_failures = 0;
		harness_tests[i].fn();
		if (harness_test_failures)
			fprintf(stderr, "  test %s: %lu failed checks\n",
				harness_current, harness_test_failures);
	}
	if (!harness_ntests) {
		fprintf(stderr, "harness: no tests registered\n");
		return 1;
	}
	if (getenv("SFAB_TEST_VERBOSE"))
		fprintf(stderr, "%d tests, %lu checks, %lu failed\n",
			harness_ntests, harness_checks, harness_failures);
	if (harness_failures) {
		fprintf(stderr, "%d tests, %lu checks, %lu failed\n",
			harness_ntests, harness_checks, harness_failures);
		return 1;
	}
	return 0;
}

#endif /* SFAB_TEST_HARNESS_H */
