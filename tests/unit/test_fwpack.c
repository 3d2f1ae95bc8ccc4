// SPDX-License-Identifier: GPL-2.0-only
/*
 * unit/fwpack: the firmware packer produces an image sfab_fw_validate()
 * accepts, with the profile from the .fwconf, and each --corrupt kind is
 * rejected with its own status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define main fwpack_main
#include "../../firmware/sfab-fwpack.c"
#undef main

static int failures;

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: CHECK(%s) failed\n",		\
			__FILE__, __LINE__, #cond);			\
		failures++;						\
	}								\
} while (0)

static unsigned char *pack(const char *conf, const char *corrupt, size_t *len)
{
	char out[] = "/tmp/sfab-fwpack-XXXXXX";
	char arg[64];
	char *argv[5];
	int argc = 0, fd;
	unsigned char *buf;
	FILE *f;

	fd = mkstemp(out);
	CHECK(fd >= 0);
	close(fd);
	argv[argc++] = "sfab-fwpack";
	argv[argc++] = "-o";
	argv[argc++] = out;
	if (corrupt) {
		snprintf(arg, sizeof(arg), "--corrupt=%s", corrupt);
		argv[argc++] = arg;
	}
	argv[argc++] = (char *)conf;
	optind = 1;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		keys[i].seen = 0;
	CHECK(fwpack_main(argc, argv) == 0);

	buf = calloc(1, SFAB_FW_MAX_SIZE);
	f = fopen(out, "rb");
	CHECK(f != NULL);
	*len = fread(buf, 1, SFAB_FW_MAX_SIZE, f);
	fclose(f);
	unlink(out);
	return buf;
}

int main(void)
{
	static const struct {
		const char *kind;
		int status;
	} bad[] = {
		{ "magic", SFAB_AQ_STS_FW_BAD_MAGIC },
		{ "format", SFAB_AQ_STS_FW_BAD_FORMAT },
		{ "size", SFAB_AQ_STS_FW_BAD_SIZE },
		{ "crc", SFAB_AQ_STS_FW_BAD_CRC },
		{ "profile", SFAB_AQ_STS_FW_BAD_PROFILE },
		{ "truncate", SFAB_AQ_STS_FW_BAD_SIZE },
	};
	const char *conf = SFAB_TOP "/firmware/sfab-hca.fwconf";
	const struct sfab_fw_header *h;
	unsigned char *img;
	size_t len, i;

	img = pack(conf, NULL, &len);
	h = (const struct sfab_fw_header *)img;
	CHECK(len == SFAB_FW_HEADER_SIZE);
	CHECK(sfab_fw_validate(img, len) == SFAB_AQ_STS_OK);
	CHECK(!strcmp(h->fw_version, "1.2.0"));
	CHECK(!strcmp(h->board_id, "SFAB-HCA-400"));
	CHECK(h->profile.num_ports == 1 && h->profile.num_vls == 8);
	CHECK(sfab_le16_to_cpu(h->profile.vl_buf_blocks) == 2048);
	CHECK(sfab_le32_to_cpu(h->profile.max_qp) == 16384);
	/* CRC32 check value of the IEEE polynomial */
	CHECK(sfab_crc32_update(0, "123456789", 9) == 0xcbf43926);
	free(img);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int st;

		img = pack(conf, bad[i].kind, &len);
		st = sfab_fw_validate(img, len);
		if (st != bad[i].status)
			fprintf(stderr, "--corrupt=%s: got %s, want %s\n",
				bad[i].kind, sfab_aq_status_str(st),
				sfab_aq_status_str(bad[i].status));
		CHECK(st == bad[i].status);
		free(img);
	}
	return failures ? 1 : 0;
}
