#include "session/window_keys.h"

void rs_window_keys_bind(struct rs_window_keys *k, uint32_t key,
			 bool revoke_older)
{
	k->before = revoke_older ? 0 : k->newest;
	k->newest = key;
}

bool rs_window_keys_hold(const struct rs_window_keys *k, uint32_t key)
{
	return key && (key == k->newest || key == k->before);
}
