/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-switchd: options, the epoll event loop and the control socket.
 *
 * One epoll set holds every listening cable socket, every connected cable,
 * the control socket and a signalfd.  Each wakeup handles all ready events
 * (frames from every cable that has some), then runs the switch once and
 * flushes what it queued: a batch in, a batch out.  The epoll timeout is
 * the next periodic flow-control deadline; nothing polls.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "sfab_swd.h"

#define TAG_LISTEN	0x10000
#define TAG_CABLE	0x20000
#define TAG_CTL		0x30000
#define TAG_SIG		0x40000
#define TAG_KICK	0x50000
#define TAG_PORT_MASK	0x0ffff
#define REDIAL_NS	200000000ULL	/* a --connect port redials this often */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void sfab_swd_usage(FILE *f)
{
	fprintf(f,
"usage: sfab-switchd [options]\n"
"  -n, --ports N          external ports (default 64, at most 254)\n"
"  -p, --port P=PATH      port P's cable: a listening AF_UNIX socket at PATH\n"
"  -P, --connect P=PATH   port P's cable: connect to the listening socket PATH\n"
"                         (another switch's port); redials while it is gone\n"
"  -s, --sock-dir DIR     every port P listens at DIR/port<P>.sock\n"
"  -c, --config FILE      read options from FILE (one 'key value' a line)\n"
"  -C, --ctl PATH         control socket (for sfab-switchctl)\n"
"  -w, --pcap-dir DIR     capture every port to DIR/port<P>.pcap\n"
"  -g, --guid GUID        node GUID (hex)\n"
"  -d, --desc TEXT        NodeDescription\n"
"  -V, --vls N            data VLs (1, 2, 4 or 8; default 8)\n"
"  -b, --vl-blocks N      input buffer per port per VL, 64-byte blocks (2048)\n"
"  -r, --rate-mbps N      port rate for the virtual-time account (400000)\n"
"  -l, --hop-ns N         per-hop latency, ns (200)\n"
"  -f, --fc-period-us N   resend flow-control packets this often (100000)\n"
"  -e, --seed N           seed of the link-error injection PRNG (1)\n"
"  -u, --up-ports LIST     fast failover: the up-port group, ports that stand\n"
"                         in for each other when one goes (e.g. 7,8 or 5-8)\n"
"  -S, --switch-ports LIST  fast failover: ports cabled to switches, told\n"
"                         (and believed) when a destination is unreachable\n"
"  -k, --cable ring|socket  frames in a shared-memory ring pair once a\n"
"                         cable is up (default), or on its socket only\n"
"  -h, --help\n");
}

/* "7,8", "5-8,12": ports 1..@n into @m; false for anything else */
static bool parse_port_list(const char *val, unsigned int n, uint64_t *m)
{
	const char *s = val;

	memset(m, 0, SFAB_SW_WANT_WORDS * sizeof(*m));
	do {
		unsigned long a, b, p;
		char *end;

		if (*s < '0' || *s > '9')
			return false;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return false;
			b = strtoul(end + 1, &end, 10);
		}
		if (!a || a > b || b > n || (*end && *end != ','))
			return false;
		for (p = a; p <= b; p++)
			m[p / 64] |= 1ULL << (p % 64);
		s = *end ? end + 1 : end;
	} while (*s);
	return s != val && s[-1] != ',';
}

static int set_opt(struct sfab_swd_opts *o, const char *key, const char *val)
{
	char *end;
	unsigned long long v = 0;

	if (strcmp(key, "port") && strcmp(key, "connect") &&
	    strcmp(key, "sock-dir") && strcmp(key, "ctl") && strcmp(key, "cable") &&
	    strcmp(key, "pcap-dir") && strcmp(key, "desc") && strcmp(key, "config") &&
	    strcmp(key, "up-ports") && strcmp(key, "switch-ports")) {
		errno = 0;
		v = strtoull(val, &end, strcmp(key, "guid") ? 0 : 16);
		if (errno || end == val || *end) {
			fprintf(stderr, "sfab-switchd: %s: bad number '%s'\n", key, val);
			return -1;
		}
	}
	if (!strcmp(key, "ports")) {
		if (!v || v > SFAB_SW_MAX_PORTS)
			goto range;
		o->cfg.nports = v;
	} else if (!strcmp(key, "port") || !strcmp(key, "connect")) {
		unsigned long p = strtoul(val, &end, 10);
		char **path = key[0] == 'p' ? o->port_path : o->peer_path;

		if (*end != '=' || !p || p > SFAB_SW_MAX_PORTS || !end[1]) {
			fprintf(stderr, "sfab-switchd: %s: want P=PATH, got '%s'\n",
				key, val);
			return -1;
		}
		free(path[p]);
		path[p] = strdup(end + 1);
	} else if (!strcmp(key, "sock-dir")) {
		free(o->sock_dir);
		o->sock_dir = strdup(val);
	} else if (!strcmp(key, "pcap-dir")) {
		free(o->pcap_dir);
		o->pcap_dir = strdup(val);
	} else if (!strcmp(key, "ctl")) {
		free(o->ctl_path);
		o->ctl_path = strdup(val);
	} else if (!strcmp(key, "config")) {
		return sfab_swd_parse_config(o, val);
	} else if (!strcmp(key, "cable")) {
		if (strcmp(val, "ring") && strcmp(val, "socket")) {
			fprintf(stderr, "sfab-switchd: cable: want ring or socket, got '%s'\n",
				val);
			return -1;
		}
		o->socket_only = !strcmp(val, "socket");
	} else if (!strcmp(key, "guid")) {
		o->cfg.node_guid = v;
	} else if (!strcmp(key, "desc")) {
		snprintf(o->cfg.desc, sizeof(o->cfg.desc), "%s", val);
	} else if (!strcmp(key, "vls")) {
		if (v != 1 && v != 2 && v != 4 && v != 8)
			goto range;
		o->cfg.num_data_vls = v;
	} else if (!strcmp(key, "vl-blocks")) {
		if (v < sfab_link_blocks(SFAB_WIRE_MAX_PKT_LEN) || v > 65536)
			goto range;
		o->cfg.vl_blocks = v;
	} else if (!strcmp(key, "rate-mbps")) {
		if (!v || v > 100000000)
			goto range;
		o->cfg.rate_mbps = v;
	} else if (!strcmp(key, "hop-ns")) {
		if (v > 1000000000)
			goto range;
		o->cfg.hop_ns = v;
	} else if (!strcmp(key, "fc-period-us")) {
		if (!v || v > 10000000)
			goto range;
		o->cfg.fc_period_ns = v * 1000;
	} else if (!strcmp(key, "seed")) {
		o->cfg.seed = v;
	} else if (!strcmp(key, "up-ports") || !strcmp(key, "switch-ports")) {
		/* checked against --ports once all options are in */
		if (!parse_port_list(val, SFAB_SW_MAX_PORTS, key[0] == 'u' ?
				     o->up_ports : o->switch_ports)) {
			fprintf(stderr, "sfab-switchd: %s: want ports like 7,8 or 5-8,"
				" got '%s'\n", key, val);
			return -1;
		}
	} else {
		fprintf(stderr, "sfab-switchd: unknown option '%s'\n", key);
		return -1;
	}
	return 0;
range:
	fprintf(stderr, "sfab-switchd: %s: %s is out of range\n", key, val);
	return -1;
}

int sfab_swd_parse_config(struct sfab_swd_opts *o, const char *file)
{
	char line[512];
	int ln = 0, ret = 0;
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "sfab-switchd: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *key, *val, *e;

		ln++;
		key = line + strspn(line, " \t");
		e = key + strcspn(key, "#\r\n");
		*e = '\0';
		while (e > key && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = '\0';
		if (!*key)
			continue;
		val = key + strcspn(key, " \t");
		if (!*val) {
			fprintf(stderr, "sfab-switchd: %s:%d: '%s' has no value\n",
				file, ln, key);
			ret = -1;
			break;
		}
		*val++ = '\0';
		val += strspn(val, " \t");
		/* "port 3 /path" is the config file's spelling of "3=/path" */
		if (!strcmp(key, "port") || !strcmp(key, "connect")) {
			char *sp = val + strcspn(val, " \t");

			if (*sp) {
				*sp = '=';
				memmove(sp + 1, sp + 1 + strspn(sp + 1, " \t"),
					strlen(sp + 1 + strspn(sp + 1, " \t")) + 1);
			}
		}
		if (set_opt(o, key, val)) {
			fprintf(stderr, "sfab-switchd: %s:%d: bad line\n", file, ln);
			ret = -1;
			break;
		}
	}
	fclose(f);
	return ret;
}

int sfab_swd_parse(struct sfab_swd_opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "ports", 1, NULL, 'n' }, { "port", 1, NULL, 'p' },
		{ "connect", 1, NULL, 'P' },
		{ "sock-dir", 1, NULL, 's' }, { "config", 1, NULL, 'c' },
		{ "ctl", 1, NULL, 'C' }, { "pcap-dir", 1, NULL, 'w' },
		{ "guid", 1, NULL, 'g' }, { "desc", 1, NULL, 'd' },
		{ "vls", 1, NULL, 'V' }, { "vl-blocks", 1, NULL, 'b' },
		{ "rate-mbps", 1, NULL, 'r' }, { "hop-ns", 1, NULL, 'l' },
		{ "fc-period-us", 1, NULL, 'f' }, { "seed", 1, NULL, 'e' },
		{ "cable", 1, NULL, 'k' }, { "up-ports", 1, NULL, 'u' },
		{ "switch-ports", 1, NULL, 'S' }, { "help", 0, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	memset(o, 0, sizeof(*o));
	sfab_sw_default_cfg(&o->cfg);
	o->cfg.vl_blocks = SFAB_SWD_VL_BLOCKS;
	optind = 1;
	while ((c = getopt_long(argc, argv, "n:p:P:s:c:C:w:g:d:V:b:r:l:f:e:k:u:S:h",
				lo, NULL)) != -1) {
		if (c == 'h') {
			sfab_swd_usage(stdout);
			return 1;
		}
		for (i = 0; lo[i].name; i++)
			if (lo[i].val == c)
				break;
		if (!lo[i].name) {
			sfab_swd_usage(stderr);
			return -1;
		}
		if (set_opt(o, lo[i].name, optarg))
			return -1;
	}
	if (optind < argc) {
		fprintf(stderr, "sfab-switchd: unexpected argument '%s'\n", argv[optind]);
		return -1;
	}
	for (i = 1; i <= SFAB_SW_MAX_PORTS; i++) {
		if (((o->up_ports[i / 64] | o->switch_ports[i / 64]) >> (i % 64) & 1) &&
		    i > (int)o->cfg.nports) {
			fprintf(stderr, "sfab-switchd: failover port %d > --ports %u\n",
				i, o->cfg.nports);
			return -1;
		}
		if ((o->port_path[i] || o->peer_path[i]) &&
		    i > (int)o->cfg.nports) {
			fprintf(stderr, "sfab-switchd: port %d > --ports %u\n", i,
				o->cfg.nports);
			return -1;
		}
		if (o->port_path[i] && o->peer_path[i]) {
			fprintf(stderr, "sfab-switchd: port %d: both --port and --connect\n",
				i);
			return -1;
		}
	}
	return 0;
}

/* --- the switch's transmit hook -------------------------------------------- */

static int swd_xmit(void *opaque, unsigned int p, const uint8_t *frame,
		    size_t len)
{
	struct sfab_swd *d = opaque;
	struct sfab_link_cable *c = &d->port[p].cable;

	if (c->fd < 0)
		return -1;
	return sfab_link_cable_queue(c, frame, len);
}

static const struct sfab_sw_ops swd_ops = { .xmit = swd_xmit };

static int ep_add(struct sfab_swd *d, int fd, uint32_t tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void ep_mod(struct sfab_swd *d, int fd, uint32_t tag, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u32 = tag };

	epoll_ctl(d->epfd, EPOLL_CTL_MOD, fd, &ev);
}

int sfab_swd_start(struct sfab_swd *d, const struct sfab_swd_opts *o)
{
	unsigned int p, n = o->cfg.nports;
	sigset_t ss;
	char buf[4096];

	memset(d, 0, sizeof(*d));
	d->ctl_fd = d->sigfd = -1;
	d->t0 = mono_ns();
	d->socket_only = o->socket_only;
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->epfd < 0)
		return -errno;
	d->sw = sfab_sw_create(&o->cfg, &swd_ops, d);
	d->port = calloc(n + 1, sizeof(*d->port));
	if (!d->sw || !d->port) {
		fprintf(stderr, "sfab-switchd: cannot create the switch\n");
		return -ENOMEM;
	}
	for (p = 1; p <= n; p++) {
		if ((o->up_ports[p / 64] >> (p % 64)) & 1)
			sfab_sw_fo_up_port(d->sw, p, true);
		if ((o->switch_ports[p / 64] >> (p % 64)) & 1)
			sfab_sw_fo_peer_port(d->sw, p, true);
	}
	for (p = 0; p <= n; p++) {
		d->port[p].lfd = d->port[p].kick_fd = -1;
		sfab_link_cable_init(&d->port[p].cable, -1);
	}
	for (p = 1; p <= n; p++) {
		int fd;

		if (o->peer_path[p]) {
			struct sockaddr_un sa;

			if (strlen(o->peer_path[p]) >= sizeof(sa.sun_path)) {
				fprintf(stderr, "sfab-switchd: port %u: %s: %s\n", p,
					o->peer_path[p], strerror(ENAMETOOLONG));
				return -ENAMETOOLONG;
			}
			/* dialled from the loop: the peer may not listen yet */
			d->port[p].peer = strdup(o->peer_path[p]);
			d->redial_at = mono_ns();
		} else if (o->port_path[p]) {
			d->port[p].path = strdup(o->port_path[p]);
		} else if (o->sock_dir) {
			snprintf(buf, sizeof(buf), "%s/port%u.sock", o->sock_dir, p);
			d->port[p].path = strdup(buf);
		}
		if (d->port[p].path) {
			fd = sfab_link_cable_listen(d->port[p].path);
			if (fd < 0) {
				fprintf(stderr, "sfab-switchd: port %u: %s: %s\n", p,
					d->port[p].path, strerror(-fd));
				return fd;
			}
			d->port[p].lfd = fd;
			ep_add(d, fd, TAG_LISTEN | p, EPOLLIN);
		} else if (!d->port[p].peer) {
			continue;
		}
		if (o->pcap_dir) {
			int ret;

			snprintf(buf, sizeof(buf), "%s/port%u.pcap", o->pcap_dir, p);
			ret = sfab_sw_pcap_open(d->sw, p, buf);
			if (ret) {
				fprintf(stderr, "sfab-switchd: %s: %s\n", buf,
					strerror(-ret));
				return ret;
			}
		}
	}
	if (o->ctl_path) {
		d->ctl_path = strdup(o->ctl_path);
		d->ctl_fd = sfab_link_cable_listen(d->ctl_path);
		if (d->ctl_fd < 0) {
			fprintf(stderr, "sfab-switchd: %s: %s\n", d->ctl_path,
				strerror(-d->ctl_fd));
			return d->ctl_fd;
		}
		ep_add(d, d->ctl_fd, TAG_CTL, EPOLLIN);
	}
	sigemptyset(&ss);
	sigaddset(&ss, SIGINT);
	sigaddset(&ss, SIGTERM);
	sigprocmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	d->sigfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	if (d->sigfd >= 0)
		ep_add(d, d->sigfd, TAG_SIG, EPOLLIN);
	return 0;
}

static void unplug(struct sfab_swd *d, unsigned int p)
{
	struct sfab_swd_port *sp = &d->port[p];

	if (sp->cable.fd < 0)
		return;
	epoll_ctl(d->epfd, EPOLL_CTL_DEL, sp->cable.fd, NULL);
	sp->skip_offer = sfab_link_cable_offer_pending(&sp->cable);
	if (sp->kick_fd >= 0)
		epoll_ctl(d->epfd, EPOLL_CTL_DEL, sp->kick_fd, NULL);
	sp->kick_fd = -1;
	sfab_link_cable_close(&sp->cable);
	sfab_sw_port_disconnect(d->sw, p);
	fprintf(stderr, "sfab-switchd: port %u: cable unplugged\n", p);
	if (sp->peer && !d->redial_at &&
	    d->sw->port[p].link.phys != SFAB_PHYS_DISABLED)
		d->redial_at = mono_ns() + REDIAL_NS;
}

/*
 * A cable is in: the port starts training.  A port that dialled offers
 * the ring pair; one that listens takes an offer unless --cable socket.
 */
static void attach(struct sfab_swd *d, unsigned int p, int fd, bool dialled)
{
	struct sfab_swd_port *sp = &d->port[p];
	int ret;

	sfab_link_cable_init(&sp->cable, fd);
	sp->cable.ring_refuse = d->socket_only;
	sp->kick_fd = -1;
	if (dialled && !d->socket_only) {
		ret = sfab_link_cable_dial(&sp->cable, SFAB_LINK_CABLE_RING_SIZE,
					   &sp->skip_offer);
		if (ret == -EPROTO)
			fprintf(stderr, "sfab-switchd: port %u: the peer hung up on the ring offer: the socket carries the frames\n",
				p);
		else if (ret)
			fprintf(stderr, "sfab-switchd: port %u: no ring pair (%s), the socket carries the frames\n",
				p, strerror(-ret));
	}
	ep_add(d, fd, TAG_CABLE | p, EPOLLIN);
	d->sw->now = mono_ns() - d->t0;
	sfab_sw_port_connect(d->sw, p);
}

/* --connect ports without a cable dial their peer; retry later if absent */
static void redial(struct sfab_swd *d)
{
	unsigned int p;
	bool again = false;

	d->redial_at = 0;
	for (p = 1; p <= d->sw->cfg.nports; p++) {
		struct sfab_swd_port *sp = &d->port[p];
		int fd;

		if (!sp->peer || sp->cable.fd >= 0 ||
		    d->sw->port[p].link.phys == SFAB_PHYS_DISABLED)
			continue;
		fd = sfab_link_cable_connect(sp->peer);
		if (fd < 0) {
			again = true;
			continue;
		}
		attach(d, p, fd, true);
		fprintf(stderr, "sfab-switchd: port %u: connected to %s\n", p,
			sp->peer);
	}
	if (again)
		d->redial_at = mono_ns() + REDIAL_NS;
}

static void plug(struct sfab_swd *d, unsigned int p)
{
	struct sfab_swd_port *sp = &d->port[p];
	int fd = sfab_link_cable_accept(sp->lfd);

	if (fd < 0)
		return;
	if (sp->cable.fd >= 0) {
		/* one cable per port: a second peer is refused */
		close(fd);
		return;
	}
	attach(d, p, fd, false);
}

/*
 * A Disabled port has no signal: its peer must see the link go down.  The
 * daemon unplugs the cable and stops listening (or dialling) until the
 * port is enabled again, by the control CLI or by a PortInfo Set; then the
 * peer's redial (an HCA's or a --connect switch port's) plugs it back in.
 */
static void sync_disabled(struct sfab_swd *d)
{
	unsigned int p;

	for (p = 1; p <= d->sw->cfg.nports; p++) {
		struct sfab_swd_port *sp = &d->port[p];
		bool off = d->sw->port[p].link.phys == SFAB_PHYS_DISABLED;

		if (off && sp->lfd >= 0) {
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, sp->lfd, NULL);
			close(sp->lfd);
			unlink(sp->path);
			sp->lfd = -1;
		}
		if (off && sp->cable.fd >= 0)
			unplug(d, p);
		if (!off && sp->path && sp->lfd < 0) {
			int fd = sfab_link_cable_listen(sp->path);

			if (fd < 0) {
				fprintf(stderr, "sfab-switchd: port %u: %s: %s\n", p,
					sp->path, strerror(-fd));
				continue;
			}
			sp->lfd = fd;
			ep_add(d, fd, TAG_LISTEN | p, EPOLLIN);
		}
		if (!off && sp->peer && sp->cable.fd < 0 && !d->redial_at)
			d->redial_at = mono_ns();
	}
}

struct rx_ctx {
	struct sfab_swd *d;
	unsigned int p;
};

/* the cable moved to its ring pair: poll the kick eventfd too */
static void watch_kick(struct sfab_swd *d, unsigned int p)
{
	struct sfab_swd_port *sp = &d->port[p];
	int k = sfab_link_cable_kick_fd(&sp->cable);

	if (k < 0 || k == sp->kick_fd)
		return;
	if (ep_add(d, k, TAG_KICK | p, EPOLLIN)) {
		fprintf(stderr, "sfab-switchd: port %u: epoll: %s\n", p, strerror(errno));
		unplug(d, p);
		return;
	}
	sp->kick_fd = k;
}

static int on_frame(void *opaque, const uint8_t *frame, size_t len)
{
	struct rx_ctx *c = opaque;

	sfab_sw_port_rx(c->d->sw, c->p, frame, len);
	return 0;
}

static void ctl_client(struct sfab_swd *d)
{
	static char out[1 << 20];
	char cmd[256];
	struct timeval tv = { .tv_sec = 1 };
	ssize_t n, off = 0, len;
	int fd = accept4(d->ctl_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* a slow client gets a second, not the switch */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = read(fd, cmd, sizeof(cmd) - 1);
	if (n > 0) {
		cmd[n] = '\0';
		cmd[strcspn(cmd, "\r\n")] = '\0';
		sfab_swd_command(d, cmd, out, sizeof(out));
		len = strlen(out);
		while (off < len) {
			n = write(fd, out + off, len - off);
			if (n <= 0)
				break;
			off += n;
		}
	}
	close(fd);
}

int sfab_swd_loop(struct sfab_swd *d)
{
	struct epoll_event ev[64];
	unsigned int p;

	while (!d->stop) {
		uint64_t now = mono_ns() - d->t0, dl = sfab_sw_deadline(d->sw);
		int timeout = -1, n, i;

		if (d->redial_at) {
			if (d->redial_at <= now + d->t0)
				redial(d);
			if (d->redial_at && d->redial_at - d->t0 < dl)
				dl = d->redial_at - d->t0;
		}
		if (dl != UINT64_MAX)
			timeout = dl <= now ? 0 : (int)((dl - now + 999999) / 1000000);
		n = epoll_wait(d->epfd, ev, 64, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		d->sw->now = mono_ns() - d->t0;
		d->batches++;
		d->events += n;
		for (i = 0; i < n; i++) {
			uint32_t tag = ev[i].data.u32;

			p = tag & TAG_PORT_MASK;
			switch (tag & ~TAG_PORT_MASK) {
			case TAG_LISTEN:
				plug(d, p);
				break;
			case TAG_CABLE:
			case TAG_KICK: {
				struct rx_ctx c = { d, p };
				int ret = 0;

				if (d->port[p].cable.fd < 0)
					break;
				if ((tag & ~TAG_PORT_MASK) == TAG_KICK)
					ret = sfab_link_cable_read_kick(&d->port[p].cable,
									on_frame, &c);
				else if (ev[i].events & EPOLLIN)
					ret = sfab_link_cable_read_sock(&d->port[p].cable,
									on_frame, &c);
				else if (ev[i].events & (EPOLLHUP | EPOLLERR))
					ret = -1;
				if (ret == -2)
					fprintf(stderr, "sfab-switchd: port %u: bad framing\n", p);
				if (ret)
					unplug(d, p);
				else
					watch_kick(d, p);
				break;
			}
			case TAG_CTL:
				ctl_client(d);
				break;
			case TAG_SIG:
				d->stop = true;
				break;
			}
		}
		/* the batch in is complete: forward, then write it all out */
		sfab_sw_run(d->sw);
		sync_disabled(d);
		for (p = 1; p <= d->sw->cfg.nports; p++) {
			struct sfab_link_cable *c = &d->port[p].cable;

			if (c->fd < 0)
				continue;
			if (sfab_link_cable_flush(c)) {
				unplug(d, p);
				continue;
			}
			ep_mod(d, c->fd, TAG_CABLE | p,
			       EPOLLIN | (sfab_link_cable_want_pollout(c) ? EPOLLOUT : 0));
		}
	}
	return 0;
}

void sfab_swd_stop(struct sfab_swd *d)
{
	unsigned int p;

	if (d->port) {
		for (p = 1; d->sw && p <= d->sw->cfg.nports; p++) {
			struct sfab_swd_port *sp = &d->port[p];

			sfab_link_cable_close(&sp->cable);
			if (sp->lfd >= 0) {
				close(sp->lfd);
				unlink(sp->path);
			}
			free(sp->path);
			free(sp->peer);
		}
	}
	if (d->ctl_fd >= 0) {
		close(d->ctl_fd);
		unlink(d->ctl_path);
	}
	free(d->ctl_path);
	if (d->sigfd >= 0)
		close(d->sigfd);
	if (d->epfd >= 0)
		close(d->epfd);
	sfab_sw_destroy(d->sw);
	free(d->port);
	memset(d, 0, sizeof(*d));
	d->epfd = d->ctl_fd = d->sigfd = -1;
}

/* --- control commands ------------------------------------------------------ */

struct outbuf {
	char *p;
	size_t size, len;
};

static void outf(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->p + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len = o->len + n < o->size ? o->len + n : o->size - 1;
}

static void cmd_ports(struct sfab_swd *d, struct outbuf *o)
{
	struct sfab_sw *sw = d->sw;
	unsigned int p;

	outf(o, "switch guid 0x%016" PRIx64 " lid %u desc \"%s\" ports %u\n",
	     sw->cfg.node_guid, sw->lid, sw->cfg.desc, sw->cfg.nports);
	outf(o, "%-4s %-8s %-8s %-6s %s\n", "port", "phys", "state", "cable", "socket");
	for (p = 1; p <= sw->cfg.nports; p++) {
		struct sfab_sw_port *sp = &sw->port[p];

		outf(o, "%-4u %-8s %-8s %-6s %s%s\n", p,
		     sfab_link_phys_name(sp->link.phys),
		     sfab_link_state_name(sp->link.state),
		     d->port[p].cable.fd >= 0 ? "yes" : "no",
		     d->port[p].peer ? "-> " : "",
		     d->port[p].path ? d->port[p].path :
		     d->port[p].peer ? d->port[p].peer : "-");
	}
}

/* one port's link-error injection: what is set, what it did */
static void show_errinj(struct outbuf *o, unsigned int p,
			const struct sfab_sw_errinj *e)
{
	outf(o, "port %u ber %g drop %g flap ", p, e->ber, e->drop);
	if (e->flap_period_ns)
		outf(o, "%" PRIu64 " %" PRIu64, e->flap_period_ns / 1000000,
		     e->flap_down_ns / 1000000);
	else
		outf(o, "off");
	outf(o, " corrupted %" PRIu64 " fc-corrupted %" PRIu64 " dropped %"
	     PRIu64 " flaps %" PRIu64 "\n", e->corrupted, e->fc_corrupted,
	     e->dropped, e->flaps);
}

static void cmd_counters(struct sfab_swd *d, struct outbuf *o, unsigned int only)
{
	struct sfab_sw *sw = d->sw;
	unsigned int p;

	for (p = 1; p <= sw->cfg.nports; p++) {
		struct sfab_sw_port *sp = &sw->port[p];
		const struct sfab_link_counters *c = &sp->link.cnt;
		uint64_t span = sp->vt_last - sp->vt_first;

		if (only ? p != only : !sp->link.cnt.rcv_pkts && !c->xmit_pkts &&
		    d->port[p].cable.fd < 0)
			continue;
		outf(o, "port %u: state %s\n", p, sfab_link_state_name(sp->link.state));
		outf(o, "  PortXmitData %" PRIu64 " PortRcvData %" PRIu64
		     " PortXmitPkts %" PRIu64 " PortRcvPkts %" PRIu64 "\n",
		     c->xmit_data / 4, c->rcv_data / 4, c->xmit_pkts, c->rcv_pkts);
		outf(o, "  PortXmitWait %" PRIu64 " PortXmitDiscards %" PRIu64
		     " PortRcvErrors %" PRIu64 " PortRcvSwitchRelayErrors %" PRIu64 "\n",
		     sp->cnt.xmit_wait, sp->cnt.xmit_discards, c->rcv_errors,
		     sp->cnt.rcv_switch_relay_errors);
		outf(o, "  PortRcvConstraintErrors %" PRIu64
		     " PortXmitConstraintErrors %" PRIu64 " enforce %s%s%s%s\n",
		     sp->cnt.rcv_constraint_errors, sp->cnt.xmit_constraint_errors,
		     sp->enforce & SFAB_PI_ENF_IN ? "in " : "",
		     sp->enforce & SFAB_PI_ENF_OUT ? "out " : "",
		     sp->enforce & SFAB_PI_FILTER_RAW_IN ? "raw-in " : "",
		     sp->enforce & SFAB_PI_FILTER_RAW_OUT ? "raw-out " : "");
		outf(o, "  SymbolErrorCounter %" PRIu64 " LinkDownedCounter %" PRIu64
		     " ExcessiveBufferOverrunErrors %" PRIu64 " VL15Dropped %" PRIu64 "\n",
		     c->symbol_errors, c->link_downed, c->excessive_buffer_overrun,
		     c->vl15_dropped);
		outf(o, "  FCPktsTx %" PRIu64 " FCPktsRx %" PRIu64 " VCRCErrors %" PRIu64
		     " ICRCErrors %" PRIu64 " Malformed %" PRIu64 " BadFCPkts %"
		     PRIu64 "\n",
		     c->fc_pkts_tx, c->fc_pkts_rx, c->vcrc_errors, c->icrc_errors,
		     c->malformed, c->bad_fc_pkts);
		outf(o, "  sim: throughput %.2f Gb/s over %" PRIu64 " ns, latency ns"
		     " avg %" PRIu64 " min %" PRIu64 " max %" PRIu64 "\n",
		     span ? sp->vt_bytes * 8.0 / span : 0.0, span,
		     sp->lat_count ? sp->lat_sum / sp->lat_count : 0,
		     sp->lat_count ? sp->lat_min : 0, sp->lat_max);
		if (d->port[p].cable.fd >= 0) {
			const struct sfab_link_cable *cab = &d->port[p].cable;

			outf(o, "  cable: %s frames-in %" PRIu64 " frames-out %" PRIu64
			     " kicks-in %" PRIu64 " kicks-out %" PRIu64 " ring-full %"
			     PRIu64 "\n", sfab_link_cable_kick_fd(cab) >= 0 ? "ring" :
			     "socket", cab->frames_in, cab->frames_out,
			     cab->ring.kicks_in, cab->ring.kicks_out, cab->ring.full);
		}
		if (sp->inj.ber_thr || sp->inj.drop_thr ||
		    sp->inj.flap_period_ns || sp->inj.corrupted ||
		    sp->inj.fc_corrupted || sp->inj.dropped || sp->inj.flaps) {
			outf(o, "  inject: ");
			show_errinj(o, p, &sp->inj);
		}
	}
	outf(o, "sma %" PRIu64 " pma %" PRIu64 " bad-mads %" PRIu64 " dr-forwarded %"
	     PRIu64 " no-route %" PRIu64 " mgmt-dropped %" PRIu64 " batches %"
	     PRIu64 " events %" PRIu64 "\n",
	     sw->sma_mads, sw->pma_mads, sw->bad_mads, sw->dr_forwarded,
	     sw->no_route, sw->mgmt_dropped, d->batches, d->events);
}

static void cmd_lft(struct sfab_swd *d, struct outbuf *o)
{
	struct sfab_sw *sw = d->sw;
	unsigned int lid;

	outf(o, "Unicast lids [0x0-0x%x] of switch guid 0x%016" PRIx64 " (%s):\n",
	     sw->lft_top, sw->cfg.node_guid, sw->cfg.desc);
	outf(o, "  Lid  Out\n");
	for (lid = 0; lid < SFAB_SW_LFT_CAP; lid++)
		if (sw->lft[lid] != SFAB_LFT_NO_PORT)
			outf(o, "0x%04x %03u\n", lid, sw->lft[lid]);
}

static void cmd_mft(struct sfab_swd *d, struct outbuf *o)
{
	struct sfab_sw *sw = d->sw;
	unsigned int i, p;

	outf(o, "Multicast mlids [0xc000-0x%x] of switch guid 0x%016" PRIx64 ":\n",
	     SFAB_LID_MCAST_BASE + SFAB_SW_MFT_CAP - 1, sw->cfg.node_guid);
	for (i = 0; i < SFAB_SW_MFT_CAP; i++) {
		bool any = false;

		for (p = 0; p <= sw->cfg.nports; p++) {
			if (!sfab_sw_mft_has_port(sw, SFAB_LID_MCAST_BASE + i, p))
				continue;
			if (!any)
				outf(o, "0x%04x:", SFAB_LID_MCAST_BASE + i);
			any = true;
			outf(o, " %u", p);
		}
		if (any)
			outf(o, "\n");
	}
}

/* an unsigned decimal (digits only) up to @max */
static bool parse_uint(const char *s, unsigned long long max,
		       unsigned long long *v)
{
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v <= max;
}

/* a probability: a decimal number (1e-3, 0.001) from 0 to 1 */
static bool parse_rate(const char *s, double *r)
{
	char *end;

	/* no sign, no "inf" or "nan", no hexadecimal */
	if ((!isdigit((unsigned char)*s) && *s != '.') || strpbrk(s, "xX"))
		return false;
	errno = 0;
	*r = strtod(s, &end);
	return !errno && !*end && *r >= 0 && *r <= 1;	/* NaN fails too */
}

#define FLAP_MAX_MS	3600000ULL	/* an hour */
#define PORT_CMDS	"down, up, ber RATE, drop RATE," \
			" flap PERIOD_MS DOWN_MS, flap off, errors, errors off"

/* port P down|up|ber R|drop R|flap T D|flap off|errors [off] */
static void cmd_port(struct sfab_swd *d, struct outbuf *o, const char *cmd)
{
	struct sfab_sw *sw = d->sw;
	char buf[256], *w[6], *save = NULL, *t;
	unsigned long long p, per, down;
	unsigned int n = 0;
	double rate;

	if (strlen(cmd) >= sizeof(buf)) {
		outf(o, "error: command too long\n");
		return;
	}
	strcpy(buf, cmd);
	for (t = strtok_r(buf, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		if (n == sizeof(w) / sizeof(w[0])) {
			outf(o, "error: port: too many words\n");
			return;
		}
		w[n++] = t;
	}
	/* w[0] is "port" */
	if (n < 3) {
		outf(o, "error: port: want port P COMMAND (" PORT_CMDS ")\n");
		return;
	}
	if (!parse_uint(w[1], sw->cfg.nports, &p) || !p) {
		outf(o, "error: no port '%s'\n", w[1]);
		return;
	}
	sw->now = mono_ns() - d->t0;
	if (!strcmp(w[2], "down") || !strcmp(w[2], "up")) {
		if (n != 3)
			goto extra;
		/* the administrator's word ends a flap */
		sfab_sw_port_flap(sw, p, 0, 0);
		sfab_sw_port_admin(sw, p, !strcmp(w[2], "up"));
		outf(o, "port %llu %s\n", p, w[2]);
	} else if (!strcmp(w[2], "ber") || !strcmp(w[2], "drop")) {
		if (n > 4)
			goto extra;
		if (n != 4 || !parse_rate(w[3], &rate)) {
			outf(o, "error: port %llu %s: want a rate from 0 to 1"
			     " (a probability per frame, e.g. 1e-3),"
			     " got '%s'\n", p, w[2], n > 3 ? w[3] : "");
			return;
		}
		if (w[2][0] == 'b' ? sfab_sw_port_ber(sw, p, rate) :
		    sfab_sw_port_drop(sw, p, rate)) {
			outf(o, "error: port %llu %s %g: refused\n", p, w[2], rate);
			return;
		}
		outf(o, "port %llu %s %g\n", p, w[2], rate);
	} else if (!strcmp(w[2], "flap")) {
		if (n == 4 && !strcmp(w[3], "off")) {
			sfab_sw_port_flap(sw, p, 0, 0);
			outf(o, "port %llu flap off\n", p);
			return;
		}
		if (n > 5)
			goto extra;
		if (n != 5 || !parse_uint(w[3], FLAP_MAX_MS, &per) ||
		    !parse_uint(w[4], FLAP_MAX_MS, &down) || !down ||
		    down >= per) {
			outf(o, "error: port %llu flap: want PERIOD_MS DOWN_MS,"
			     " 0 < DOWN_MS < PERIOD_MS <= %llu, or off\n", p,
			     FLAP_MAX_MS);
			return;
		}
		if (sfab_sw_port_flap(sw, p, per * 1000000, down * 1000000)) {
			outf(o, "error: port %llu flap %llu %llu: refused\n", p,
			     per, down);
			return;
		}
		outf(o, "port %llu flap %llu %llu\n", p, per, down);
	} else if (!strcmp(w[2], "errors")) {
		if (n == 3) {
			show_errinj(o, p, &sw->port[p].inj);
			return;
		}
		if (n != 4 || strcmp(w[3], "off"))
			goto extra;
		sfab_sw_port_errors_clear(sw, p);
		outf(o, "port %llu errors off\n", p);
	} else {
		outf(o, "error: port %llu: unknown command '%s' (" PORT_CMDS
		     ")\n", p, w[2]);
	}
	return;
extra:
	outf(o, "error: port %llu %s: unexpected '%s'\n", p, w[2], w[n - 1]);
}

static void show_ports(struct outbuf *o, const char *what, const uint64_t *m,
		       unsigned int n)
{
	unsigned int p;

	outf(o, "%s:", what);
	for (p = 1; p <= n; p++)
		if ((m[p / 64] >> (p % 64)) & 1)
			outf(o, " %u", p);
	outf(o, "\n");
}

/* failover: the groups, the counters, the destinations moved now */
static void cmd_failover(struct sfab_swd *d, struct outbuf *o)
{
	struct sfab_sw *sw = d->sw;
	const struct sfab_sw_fo *fo = &sw->fo;
	unsigned int lid, shown = 0;

	show_ports(o, "up-ports", fo->up, sw->cfg.nports);
	show_ports(o, "switch-ports", fo->peer, sw->cfg.nports);
	outf(o, "events %" PRIu64 " moved %" PRIu64 " unreachable %" PRIu64
	     " requeued %" PRIu64 " sent-alt %" PRIu64 " frn-sent %" PRIu64
	     " frn-taken %" PRIu64 " frn-refused %" PRIu64 "\n",
	     fo->events, fo->moved, fo->unreachable, fo->requeued, fo->sent_alt,
	     fo->frn_sent, fo->frn_taken, fo->frn_refused);
	for (lid = 1; lid < SFAB_SW_LFT_CAP && shown < 64; lid++) {
		uint8_t alt = sfab_sw_alt_get(sw, lid);

		if ((!fo->over || fo->over[lid] == SFAB_LFT_NO_PORT) &&
		    alt == SFAB_LFT_NO_PORT)
			continue;
		outf(o, "lid %u: lft %u", lid, sw->lft[lid]);
		if (alt != SFAB_LFT_NO_PORT)
			outf(o, " backup %u", alt);
		if (fo->over && fo->over[lid] != SFAB_LFT_NO_PORT)
			outf(o, " now %u", fo->over[lid]);
		outf(o, "\n");
		shown++;
	}
	if (shown == 64)
		outf(o, "(first 64 LIDs only)\n");
}

/* alt LID PORT|none: a backup LFT entry */
static void cmd_alt(struct sfab_swd *d, struct outbuf *o, const char *lid_s,
		    const char *port_s, const char *extra)
{
	unsigned long long lid, port = SFAB_LFT_NO_PORT;

	if (*extra || !parse_uint(lid_s, SFAB_SW_LFT_CAP - 1, &lid) || !lid ||
	    (strcmp(port_s, "none") &&
	     (!parse_uint(port_s, d->sw->cfg.nports, &port) || !port))) {
		outf(o, "error: alt: want alt LID PORT|none, LID 1..%u, PORT 1..%u\n",
		     SFAB_SW_LFT_CAP - 1, d->sw->cfg.nports);
		return;
	}
	if (sfab_sw_alt_set(d->sw, lid, port)) {
		outf(o, "error: alt %llu: refused (no memory)\n", lid);
		return;
	}
	outf(o, "alt %llu %s\n", lid, port_s);
}

void sfab_swd_command(struct sfab_swd *d, const char *cmd, char *out,
		      size_t size)
{
	struct outbuf o = { out, size, 0 };
	char verb[32] = "", arg[32] = "", arg2[32] = "", arg3[32] = "";
	unsigned long p;
	char *end;

	out[0] = '\0';
	sscanf(cmd, "%31s %31s %31s %31s", verb, arg, arg2, arg3);
	if (!strcmp(verb, "ports")) {
		cmd_ports(d, &o);
	} else if (!strcmp(verb, "counters")) {
		p = *arg ? strtoul(arg, &end, 10) : 0;
		if (*arg && (*end || !p || p > d->sw->cfg.nports))
			outf(&o, "error: no port '%s'\n", arg);
		else
			cmd_counters(d, &o, p);
	} else if (!strcmp(verb, "lft")) {
		cmd_lft(d, &o);
	} else if (!strcmp(verb, "mft")) {
		cmd_mft(d, &o);
	} else if (!strcmp(verb, "port")) {
		cmd_port(d, &o, cmd);
	} else if (!strcmp(verb, "failover")) {
		if (*arg)
			outf(&o, "error: failover: unexpected '%s'\n", arg);
		else
			cmd_failover(d, &o);
	} else if (!strcmp(verb, "alt")) {
		cmd_alt(d, &o, arg, arg2, arg3);
	} else if (!strcmp(verb, "seed")) {
		unsigned long long seed;

		if (!parse_uint(arg, UINT64_MAX, &seed) || *arg2) {
			outf(&o, "error: seed: want a decimal number,"
			     " got '%s'\n", arg);
			return;
		}
		sfab_sw_seed(d->sw, seed);
		outf(&o, "seed %llu\n", seed);
	} else {
		outf(&o, "error: unknown command '%s' (ports, counters [P], lft, mft,"
		     " port P down|up|ber|drop|flap|errors, seed N, failover,"
		     " alt LID PORT|none)\n", cmd);
	}
}
