/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab switch: a pcap tap per port.
 *
 * Each file holds the data packets a port received and sent (LRH through
 * VCRC) with link type 247 (LINKTYPE_INFINIBAND) and nanosecond wall-clock
 * timestamps.  Link (flow-control) packets are not written: link type 247
 * is dissected as data packets starting with an LRH.
 */
#include <errno.h>
#include <stdio.h>
#include <time.h>

#include "sfab_sw.h"

#define PCAP_MAGIC_NS		0xa1b23c4dU
#define LINKTYPE_INFINIBAND	247

struct pcap_file_hdr {
	uint32_t magic;
	uint16_t major, minor;
	int32_t thiszone;
	uint32_t sigfigs, snaplen, linktype;
};

struct pcap_rec_hdr {
	uint32_t ts_sec, ts_nsec, incl_len, orig_len;
};

int sfab_sw_pcap_open(struct sfab_sw *sw, unsigned int p, const char *path)
{
	struct pcap_file_hdr h = {
		.magic = PCAP_MAGIC_NS, .major = 2, .minor = 4,
		.snaplen = 65535, .linktype = LINKTYPE_INFINIBAND,
	};
	struct sfab_sw_port *port;
	FILE *f;

	if (p > sw->cfg.nports || !p)
		return -EINVAL;
	port = &sw->port[p];
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	if (fwrite(&h, sizeof(h), 1, f) != 1) {
		fclose(f);
		return -EIO;
	}
	sfab_sw_pcap_close(port);
	port->pcap = f;
	return 0;
}

void sfab_sw_pcap_write(struct sfab_sw_port *port, const uint8_t *frame,
			size_t len)
{
	struct pcap_rec_hdr r;
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	r.ts_sec = ts.tv_sec;
	r.ts_nsec = ts.tv_nsec;
	r.incl_len = r.orig_len = len;
	if (fwrite(&r, sizeof(r), 1, port->pcap) != 1 ||
	    fwrite(frame, len, 1, port->pcap) != 1) {
		/* a full disk stops the capture, not the switch */
		fclose(port->pcap);
		port->pcap = NULL;
	}
}

void sfab_sw_pcap_close(struct sfab_sw_port *port)
{
	if (port->pcap) {
		fclose(port->pcap);
		port->pcap = NULL;
	}
}
