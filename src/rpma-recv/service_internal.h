/* What the service is made of, shared by its loop and reloads (service.c)
 * and the routing of connection requests (routing.c). */
#ifndef RECV_SERVICE_INTERNAL_H
#define RECV_SERVICE_INTERNAL_H

#include "log_worker.h"
#include "service.h"
#include "status_line.h"

struct rs_listener;
struct rs_listener_event;

/* A log as the service knows it: its settings and its thread. */
struct served_log {
	struct served_log *next;
	struct recv_log_settings settings;
	struct recv_log_worker *worker;
	bool retired; /* removed by a reload: takes no new senders */
};

struct service {
	struct recv_settings_source source;
	struct recv_settings settings; /* the globals in force */
	struct served_log *logs;
	struct rs_listener *listener;
	struct recv_counters counters;
	struct recv_status_line status; /* for `systemctl status` */
};

/* Checks a connection request and hands it to its log, or refuses it. */
void recv_service_route(struct service *svc, struct rs_listener_event *ev);

#endif
