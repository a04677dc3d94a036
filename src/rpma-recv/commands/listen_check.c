#include "commands/listen_check.h"

#include "cli/endpoint.h"
#include "error.h"

#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* True when a datagram socket binds to the address (port 0: any free one),
 * as the connection manager's listener will: the address is this host's. */
static bool binds(const struct addrinfo *ai)
{
	int fd = socket(ai->ai_family, SOCK_DGRAM, 0);
	if (fd < 0)
		return true; /* no such family here: the start will say */
	struct sockaddr_storage sa;
	memcpy(&sa, ai->ai_addr, ai->ai_addrlen);
	if (sa.ss_family == AF_INET)
		((struct sockaddr_in *)&sa)->sin_port = 0;
	else if (sa.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&sa)->sin6_port = 0;
	bool ok = !bind(fd, (struct sockaddr *)&sa, ai->ai_addrlen) ||
		  errno != EADDRNOTAVAIL;
	close(fd);
	return ok;
}

int recv_listen_check(const struct rs_endpoint *ep, const char *where,
		      struct rs_error *err)
{
	if (!ep->host[0])
		return 0;
	struct addrinfo hints = {.ai_flags = AI_PASSIVE,
				 .ai_socktype = SOCK_DGRAM};
	struct addrinfo *res = 0;
	int gai = getaddrinfo(ep->host, 0, &hints, &res);
	if (gai == EAI_AGAIN)
		return 0;
	if (gai)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "%s: listen address '%s' does not "
				    "resolve (%s): give an address of this "
				    "host's RDMA device, or none to listen "
				    "on all",
				    where, ep->host, gai_strerror(gai));
	bool ours = false;
	for (const struct addrinfo *ai = res; ai && !ours; ai = ai->ai_next)
		ours = binds(ai);
	freeaddrinfo(res);
	if (ours)
		return 0;
	return rs_error_set(err, RS_E_INVAL, 0,
			    "%s: listen address '%s' is not an address of "
			    "this host: give the address of its RDMA device's "
			    "network interface (ip -brief address), or none "
			    "to listen on all",
			    where, ep->host);
}
