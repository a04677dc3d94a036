/* Address ranges for rpma-recv --allow: IPv4 or IPv6 in CIDR notation
 * (192.0.2.0/24, fe80::/10) or a single address. */
#ifndef RECV_SETTINGS_CIDR_H
#define RECV_SETTINGS_CIDR_H

#include "error.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct recv_cidr {
	int family; /* AF_INET or AF_INET6 */
	uint8_t addr[16];
	unsigned prefix; /* leading bits that must match */
};

/* Sets *c from "ADDR[/PREFIX]"; RS_E_INVAL with what is wrong with text. */
int recv_cidr_parse(const char *text, struct recv_cidr *c,
		    struct rs_error *err);

/* True when sa lies in c. An IPv4-mapped IPv6 peer matches IPv4 ranges. */
bool recv_cidr_match(const struct recv_cidr *c, const struct sockaddr *sa);

#endif
