/* The protocol versions a build speaks (descriptor.h: RS_PROTO_VERSION_MIN
 * to RS_PROTO_VERSION), and the one two peers agree on: the newest both
 * speak. Pure. */
#ifndef RS_PROTO_VERSION_H
#define RS_PROTO_VERSION_H

#include <stdbool.h>
#include <stdint.h>

struct rs_error;

/* Whether this build speaks version. */
bool rs_proto_speaks(uint8_t version);

/* The newest version both this build and a peer that speaks their_min to
 * their_max speak: 0 and *common; or RS_E_VERSION with one line naming
 * both sides' versions and which side to upgrade (peer: how the line names
 * the peer, e.g. "pmemhost:7204"; its role: the receiver). */
int rs_proto_agree(uint8_t their_min, uint8_t their_max, const char *peer,
		   uint8_t *common, struct rs_error *err);

#endif
