/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sfab-switchd: an IBA switch whose ports are AF_UNIX cable sockets.
 * See Documentation/sfab/fabric.rst.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sfab_swd.h"

int main(int argc, char **argv)
{
	struct sfab_swd_opts o;
	struct sfab_swd d;
	int ret;

	ret = sfab_swd_parse(&o, argc, argv);
	if (ret)
		return ret > 0 ? 0 : 2;
	ret = sfab_swd_start(&d, &o);
	if (!ret) {
		fprintf(stderr, "sfab-switchd: %u ports, guid 0x%llx, ready\n",
			o.cfg.nports, (unsigned long long)o.cfg.node_guid);
		ret = sfab_swd_loop(&d);
	}
	sfab_swd_stop(&d);
	for (unsigned int i = 0; i <= SFAB_SW_MAX_PORTS; i++) {
		free(o.port_path[i]);
		free(o.peer_path[i]);
	}
	free(o.sock_dir);
	free(o.pcap_dir);
	free(o.ctl_path);
	return ret ? 1 : 0;
}
