#include "proto/method.h"

#include "error.h"

#include <stdio.h>
#include <string.h>

static const char *const method_names[RS_METHOD_COUNT] = {
    [RS_METHOD_AUTO] = "auto",	 [RS_METHOD_APM] = "apm",
    [RS_METHOD_GPSPM] = "gpspm", [RS_METHOD_STAGED] = "staged",
    [RS_METHOD_FLUSH] = "flush",
};

/* The default's order: flush first, the one method correct on any
 * platform without the receiver's CPU; then APM (no receiver CPU, but only
 * where the receiver declares DDIO off), GPSPM (no extra copy), staged. */
static const enum rs_method preference[] = {RS_METHOD_FLUSH, RS_METHOD_APM,
					    RS_METHOD_GPSPM, RS_METHOD_STAGED};

const char *rs_method_name(enum rs_method m)
{
	if ((unsigned)m >= RS_METHOD_COUNT)
		return "unknown";
	return method_names[m];
}

int rs_method_parse(const char *name, enum rs_method *m, struct rs_error *err)
{
	for (unsigned i = 0; i < RS_METHOD_COUNT; i++) {
		if (strcmp(name, method_names[i]) == 0) {
			*m = (enum rs_method)i;
			return 0;
		}
	}
	return rs_error_set(err, RS_E_INVAL, 0,
			    "'%s' is not apm, gpspm, staged or flush", name);
}

const char *rs_method_requirement(enum rs_method m)
{
	switch (m) {
	case RS_METHOD_APM:
		return "apm needs a receiver that declares direct write to "
		       "PMem (DDIO off), on byte-addressable PMem that the "
		       "device can register";
	case RS_METHOD_GPSPM:
		return "gpspm needs a pool the RDMA device can register "
		       "(devdax, a plain file, or fsdax on an ODP device)";
	case RS_METHOD_FLUSH:
		return "flush needs RDMA FLUSH and ATOMIC WRITE on the "
		       "receiver's device, a devdax pool, a log that is not "
		       "append-only, and rdma-core 45 or later on both sides";
	default:
		return "the receiver does not offer it";
	}
}

const char *rs_method_list(uint8_t methods, char *buf, size_t len)
{
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(preference) / sizeof(*preference); i++) {
		if (!(methods & RS_METHOD_BIT(preference[i])))
			continue;
		if (buf[0])
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, method_names[preference[i]],
			len - strlen(buf) - 1);
	}
	if (!buf[0])
		snprintf(buf, len, "nothing");
	return buf;
}

int rs_method_choose(uint8_t allowed, enum rs_method requested,
		     enum rs_method *chosen, struct rs_error *err)
{
	if (requested != RS_METHOD_AUTO) {
		if (allowed & RS_METHOD_BIT(requested)) {
			*chosen = requested;
			return 0;
		}
	} else {
		for (size_t i = 0; i < sizeof(preference) / sizeof(*preference);
		     i++) {
			if (allowed & RS_METHOD_BIT(preference[i])) {
				*chosen = preference[i];
				return 0;
			}
		}
	}

	char offered[64];
	rs_method_list(allowed, offered, sizeof(offered));
	if (requested == RS_METHOD_AUTO)
		return rs_error_set(err, RS_E_INVAL, 0,
				    "the receiver offers no known method");
	return rs_error_set(err, RS_E_INVAL, 0,
			    "method %s is not offered by the receiver (%s); "
			    "it offers: %s",
			    method_names[requested],
			    rs_method_requirement(requested), offered);
}
