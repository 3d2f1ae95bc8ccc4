// SPDX-License-Identifier: GPL-2.0-only
/*
 * sfab-fwpack: pack a device profile (firmware/sfab-hca.fwconf) into an
 * sfab firmware image (include/sfab/sfab_fw.h), or a deliberately broken
 * one for tests.
 *
 *   sfab-fwpack [-o OUT] [-p PAYLOAD] [--corrupt=KIND] CONF
 *
 * KIND is one of magic, format, size, crc, profile, truncate.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sfab/sfab_fw.h"

static const char *prog = "sfab-fwpack";

static void die(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	exit(1);
}

struct key {
	const char *name;
	size_t off;	/* offset in struct sfab_fw_header */
	int width;	/* 1, 2, 4 bytes; 0: string */
	size_t len;	/* string buffer size */
	unsigned long max;
	int seen;
};

#define HOFF(f) offsetof(struct sfab_fw_header, f)
#define POFF(f) (HOFF(profile) + offsetof(struct sfab_fw_profile, f))

static struct key keys[] = {
	{ "fw_version", HOFF(fw_version), 0, SFAB_FW_VERSION_LEN, 0, 0 },
	{ "board_id", HOFF(board_id), 0, SFAB_BOARD_ID_LEN, 0, 0 },
	{ "num_ports", POFF(num_ports), 1, 0, 0xff, 0 },
	{ "num_vls", POFF(num_vls), 1, 0, 0xff, 0 },
	{ "vl_buf_blocks", POFF(vl_buf_blocks), 2, 0, 0xffff, 0 },
	{ "max_qp", POFF(max_qp), 4, 0, 0xffffffffUL, 0 },
	{ "max_qp_wr", POFF(max_qp_wr), 4, 0, 0xffffffffUL, 0 },
	{ "max_sge", POFF(max_sge), 4, 0, 0xffffffffUL, 0 },
	{ "max_cq", POFF(max_cq), 4, 0, 0xffffffffUL, 0 },
	{ "max_cqe", POFF(max_cqe), 4, 0, 0xffffffffUL, 0 },
	{ "max_mr", POFF(max_mr), 4, 0, 0xffffffffUL, 0 },
	{ "max_pd", POFF(max_pd), 4, 0, 0xffffffffUL, 0 },
	{ "max_srq", POFF(max_srq), 4, 0, 0xffffffffUL, 0 },
	{ "max_eq", POFF(max_eq), 4, 0, 0xffffffffUL, 0 },
	{ "max_inline", POFF(max_inline), 4, 0, 0xffffffffUL, 0 },
	{ "max_msg_size", POFF(max_msg_size), 4, 0, 0xffffffffUL, 0 },
};

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' ||
			 e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static void set_key(unsigned char *img, const char *conf, int line,
		    char *name, char *val)
{
	char where[512];
	unsigned long v;
	char *end;
	size_t i;

	snprintf(where, sizeof(where), "%s:%d: %s", conf, line, name);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		struct key *k = &keys[i];

		if (strcmp(k->name, name))
			continue;
		if (k->seen++)
			die("%s: given twice", where);
		if (!k->width) {
			if (!*val || strlen(val) >= k->len)
				die("%s: empty or too long", where);
			memcpy(img + k->off, val, strlen(val));
			return;
		}
		errno = 0;
		v = strtoul(val, &end, 0);
		if (errno || end == val || *end || v > k->max)
			die("%s: not a number in range", where);
		if (k->width == 1) {
			img[k->off] = v;
		} else if (k->width == 2) {
			__le16 x = sfab_cpu_to_le16(v);

			memcpy(img + k->off, &x, 2);
		} else {
			__le32 x = sfab_cpu_to_le32(v);

			memcpy(img + k->off, &x, 4);
		}
		return;
	}
	die("%s: unknown key", where);
}

static void parse_conf(unsigned char *img, const char *conf)
{
	char buf[512], *s, *eq;
	int line = 0;
	size_t i;
	FILE *f;

	f = fopen(conf, "r");
	if (!f)
		die("cannot open %s", conf);
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		s = trim(buf);
		if (!*s || *s == '#')
			continue;
		eq = strchr(s, '=');
		if (!eq)
			die("%s: line without '='", conf);
		*eq = '\0';
		set_key(img, conf, line, trim(s), trim(eq + 1));
	}
	fclose(f);
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!keys[i].seen && strcmp(keys[i].name, "max_srq") &&
		    strcmp(keys[i].name, "max_inline"))
			die("missing key %s", keys[i].name);
}

static size_t read_payload(unsigned char *dst, size_t room, const char *path)
{
	size_t n;
	FILE *f;

	f = fopen(path, "rb");
	if (!f)
		die("cannot open %s", path);
	n = fread(dst, 1, room, f);
	if (fgetc(f) != EOF)
		die("%s: payload too large", path);
	fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "payload", required_argument, NULL, 'p' },
		{ "corrupt", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out = NULL, *payload = NULL, *corrupt = NULL;
	struct sfab_fw_header *h;
	unsigned char *img;
	size_t len, wlen;
	int c, st;
	FILE *f;

	while ((c = getopt_long(argc, argv, "o:p:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'p':
			payload = optarg;
			break;
		case 'c':
			corrupt = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-o OUT] [-p PAYLOAD] [--corrupt=magic|format|size|crc|profile|truncate] CONF\n",
				prog);
			return c == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1)
		die("%s", "exactly one CONF file expected (see --help)");

	img = calloc(1, SFAB_FW_MAX_SIZE);
	if (!img)
		die("%s", "out of memory");
	h = (struct sfab_fw_header *)img;
	parse_conf(img, argv[optind]);
	len = SFAB_FW_HEADER_SIZE;
	if (payload)
		len += read_payload(img + len, SFAB_FW_MAX_SIZE - len, payload);

	h->magic = sfab_cpu_to_le32(SFAB_FW_MAGIC);
	h->format_version = sfab_cpu_to_le16(SFAB_FW_FORMAT_VERSION);
	h->header_len = sfab_cpu_to_le16(SFAB_FW_HEADER_SIZE);
	h->image_len = sfab_cpu_to_le32(len);

	/* profile breakage must still carry a valid CRC to reach that check */
	if (corrupt && !strcmp(corrupt, "profile"))
		h->profile.num_vls = 3;
	h->crc32 = sfab_cpu_to_le32(sfab_fw_image_crc(img, len));

	st = sfab_fw_validate(img, len);
	if (st != (corrupt && !strcmp(corrupt, "profile") ?
		   SFAB_AQ_STS_FW_BAD_PROFILE : SFAB_AQ_STS_OK))
		die("image does not validate: %s", sfab_aq_status_str(st));

	wlen = len;
	if (!corrupt || !strcmp(corrupt, "profile")) {
		/* nothing more */
	} else if (!strcmp(corrupt, "magic")) {
		h->magic = sfab_cpu_to_le32(SFAB_FW_MAGIC ^ 0x20);
	} else if (!strcmp(corrupt, "format")) {
		h->format_version = sfab_cpu_to_le16(SFAB_FW_FORMAT_VERSION + 1);
	} else if (!strcmp(corrupt, "size")) {
		h->image_len = sfab_cpu_to_le32(len + 64);
	} else if (!strcmp(corrupt, "crc")) {
		img[len - 1] ^= 0x01;	/* a flipped bit the CRC must catch */
	} else if (!strcmp(corrupt, "truncate")) {
		wlen = len / 2;
	} else {
		die("unknown --corrupt kind %s", corrupt);
	}

	f = out ? fopen(out, "wb") : stdout;
	if (!f)
		die("cannot create %s", out);
	if (fwrite(img, 1, wlen, f) != wlen || (out && fclose(f)))
		die("cannot write %s", out ? out : "stdout");
	free(img);
	return 0;
}
