#include "methods/recv_method.h"

#include <stddef.h>

const struct recv_method *const recv_methods[] = {
    &recv_method_apm,
    &recv_method_gpspm,
    &recv_method_staged,
    &recv_method_flush,
    NULL,
};

const struct recv_method *recv_method_get(enum rs_method id)
{
	for (size_t i = 0; recv_methods[i]; i++)
		if (recv_methods[i]->id == id)
			return recv_methods[i];
	return NULL;
}

const struct recv_method *recv_method_choose(uint8_t offered,
					     enum rs_method requested)
{
	enum rs_method m;
	if (rs_method_choose(offered, requested, &m, NULL))
		return NULL;
	return recv_method_get(m);
}
