/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Memory policy constants and names. libnuma's numaif.h provides the
 * syscall wrappers but predates some uapi values that Linux 6.12 has, and
 * <linux/mempolicy.h> cannot be included next to it (its enum clashes with
 * numaif.h's macros), so the missing values are spelled out here.
 */
#ifndef NUMAPOL_MPOL_H
#define NUMAPOL_MPOL_H

#include <numaif.h>

#ifndef MPOL_F_STATIC_NODES
#define MPOL_F_STATIC_NODES	(1 << 15)
#endif
#ifndef MPOL_F_RELATIVE_NODES
#define MPOL_F_RELATIVE_NODES	(1 << 14)
#endif
#ifndef MPOL_WEIGHTED_INTERLEAVE
#define MPOL_WEIGHTED_INTERLEAVE	6
#endif

#define MPOL_NODE_FLAGS	(MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES)

const char *mpol_mode_name(int mode);
const char *mpol_flags_name(unsigned int flags);

#endif
