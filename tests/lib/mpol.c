// SPDX-License-Identifier: GPL-2.0
#include "mpol.h"

const char *mpol_mode_name(int mode)
{
	switch (mode) {
	case MPOL_DEFAULT: return "DEFAULT";
	case MPOL_PREFERRED: return "PREFERRED";
	case MPOL_BIND: return "BIND";
	case MPOL_INTERLEAVE: return "INTERLEAVE";
	case MPOL_LOCAL: return "LOCAL";
	case MPOL_PREFERRED_MANY: return "PREFERRED_MANY";
	case MPOL_WEIGHTED_INTERLEAVE: return "WEIGHTED_INTERLEAVE";
	}
	return "?";
}

const char *mpol_flags_name(unsigned int flags)
{
	switch (flags & MPOL_NODE_FLAGS) {
	case 0: return "none";
	case MPOL_F_STATIC_NODES: return "STATIC";
	case MPOL_F_RELATIVE_NODES: return "RELATIVE";
	}
	return "STATIC|RELATIVE";
}
