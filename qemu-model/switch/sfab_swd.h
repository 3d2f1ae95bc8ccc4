/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-switchd's event loop: listening cable sockets, the control socket,
 * and the sfab_sw core, driven by epoll (no polling loops).
 */
#ifndef SFAB_SWD_H
#define SFAB_SWD_H

#include "sfab_sw.h"
#include "../link/sfab_cable.h"

/*
 * The daemon's input buffer per port per data VL, in 64-byte blocks:
 * 2048 (128 KiB), the most credit IBTA lets a link advertise, as the HCA's
 * firmware has.  The core's default (256, 16 KiB) holds three 4 KiB
 * packets, so a message stream waited on a credit round trip through
 * three processes every few packets (Documentation/sfab/benchmark.rst,
 * "Synchronous workloads").
 */
#define SFAB_SWD_VL_BLOCKS		2048

struct sfab_swd_port {
	char *path;			/* listening socket, NULL: no cable here */
	char *peer;			/* or: dial this socket (another switch) */
	int lfd;
	struct sfab_link_cable cable;	/* cable.fd < 0: nothing plugged in */
	int kick_fd;			/* the cable's eventfd in the epoll set, or -1 */
	bool skip_offer;		/* the peer hung up on our last ring offer */
};

struct sfab_swd {
	struct sfab_sw *sw;
	struct sfab_swd_port *port;	/* [0..nports], [0] unused */
	char *ctl_path;
	int ctl_fd;
	int epfd;
	int sigfd;
	bool stop;
	bool socket_only;		/* --cable socket */
	uint64_t t0;
	uint64_t redial_at;		/* mono_ns of the next dial; 0: none due */
	uint64_t batches, events;
};

struct sfab_swd_opts {
	struct sfab_sw_cfg cfg;
	char *port_path[SFAB_SW_MAX_PORTS + 1];
	char *peer_path[SFAB_SW_MAX_PORTS + 1];	/* --connect P=PATH */
	char *sock_dir;			/* DIR/port<N>.sock for every port */
	char *pcap_dir;			/* DIR/port<N>.pcap for every port */
	char *ctl_path;
	bool socket_only;		/* --cable socket: no ring pairs */
	/* fast failover: --up-ports, --switch-ports (bit P: port P) */
	uint64_t up_ports[SFAB_SW_WANT_WORDS];
	uint64_t switch_ports[SFAB_SW_WANT_WORDS];
};

int sfab_swd_parse(struct sfab_swd_opts *o, int argc, char **argv);
int sfab_swd_parse_config(struct sfab_swd_opts *o, const char *file);
int sfab_swd_start(struct sfab_swd *d, const struct sfab_swd_opts *o);
int sfab_swd_loop(struct sfab_swd *d);
void sfab_swd_stop(struct sfab_swd *d);
/* run one control command, output into @out (NUL terminated) */
void sfab_swd_command(struct sfab_swd *d, const char *cmd, char *out,
		      size_t size);
void sfab_swd_usage(FILE *f);

#endif /* SFAB_SWD_H */
