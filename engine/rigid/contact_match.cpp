// The host's one compiled matchManifold (rigid/contact_match.h says why it is not an inline function).
#define VBD_CONTACT_MATCH_BODY
#include "rigid/contact_match.h"
