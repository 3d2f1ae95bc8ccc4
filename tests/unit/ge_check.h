/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Guest-error checks for engine tests, on top of harness.h and
 * fake_host.h: ge_mark() notes every site's count (and clears the last
 * message), ge_said() checks that since then exactly one report came, at
 * the site given, and that its message holds the text given.
 */
#ifndef SFAB_TEST_GE_CHECK_H
#define SFAB_TEST_GE_CHECK_H

#include "fake_host.h"

static unsigned long ge_before[SFAB_GE__COUNT];

static inline void ge_mark(struct fake_host *h)
{
	memcpy(ge_before, h->guest_error_sites, sizeof(ge_before));
	h->last_error[0] = '\0';
}

/*
 * Since ge_mark(): one report, at @site, and its message holds @text;
 * no other site (the generic admin-cmd one included) moved.
 */
static inline void ge_said(struct fake_host *h, enum sfab_guest_err site,
			   const char *text)
{
	unsigned int i;

	for (i = 0; i < SFAB_GE__COUNT; i++) {
		unsigned long d = h->guest_error_sites[i] - ge_before[i];

		CHECK_EQ(d, i == site ? 1 : 0);
		if (d != (i == site ? 1U : 0U))
			fprintf(stderr, "  site %s: %lu reports\n",
				sfab_engine_guest_error_site_name(i), d);
	}
	CHECK(strstr(h->last_error, text));
	if (!strstr(h->last_error, text))
		fprintf(stderr, "  said \"%s\", want \"%s\"\n", h->last_error,
			text);
}

#endif
