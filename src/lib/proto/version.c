#include "proto/version.h"

#include "error.h"
#include "proto/descriptor.h"

bool rs_proto_speaks(uint8_t version)
{
	return version >= RS_PROTO_VERSION_MIN && version <= RS_PROTO_VERSION;
}

int rs_proto_agree(uint8_t their_min, uint8_t their_max, const char *peer,
		   uint8_t *common, struct rs_error *err)
{
	uint8_t newest =
	    their_max < RS_PROTO_VERSION ? their_max : RS_PROTO_VERSION;
	if (their_min <= their_max && newest >= their_min &&
	    newest >= RS_PROTO_VERSION_MIN) {
		*common = newest;
		return 0;
	}
	return rs_error_set(
	    err, RS_E_VERSION, 0,
	    "%s speaks protocol versions %u to %u, this sender "
	    "%u to %u: upgrade the %s",
	    peer, their_min, their_max, RS_PROTO_VERSION_MIN, RS_PROTO_VERSION,
	    their_max < RS_PROTO_VERSION_MIN ? "receiver" : "sender");
}
