/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixture variants for every mode and node flag under a cgroup version,
 * for suites whose FIXTURE_VARIANT has { int mode; unsigned int flags;
 * enum cgroup_version cgroup; }. A variant is named MODE_FLAG_vN, as in
 * BIND_none_v2 or PREFERRED_RELATIVE_v1. Include after kselftest_harness.h.
 */
#ifndef NUMAPOL_VARIANTS_H
#define NUMAPOL_VARIANTS_H

#include "cpuset.h"
#include "mpol.h"

#define VARIANT_FLAG_none	0
#define VARIANT_FLAG_STATIC	MPOL_F_STATIC_NODES
#define VARIANT_FLAG_RELATIVE	MPOL_F_RELATIVE_NODES
/* Not a node flag: behaves as no flag (rules 3 and 5). */
#define VARIANT_FLAG_BALANCING	MPOL_F_NUMA_BALANCING

#define MODE_FLAG_VARIANT(fixture, m, f, v) \
	FIXTURE_VARIANT_ADD(fixture, m##_##f##_v##v) { \
		.mode = MPOL_##m, .flags = VARIANT_FLAG_##f, \
		.cgroup = CGROUP_V##v }
#define MODE_VARIANTS(fixture, m, v) \
	MODE_FLAG_VARIANT(fixture, m, none, v); \
	MODE_FLAG_VARIANT(fixture, m, STATIC, v); \
	MODE_FLAG_VARIANT(fixture, m, RELATIVE, v)
#define EVERY_MODE_VARIANTS(fixture, v) \
	MODE_VARIANTS(fixture, BIND, v); \
	MODE_VARIANTS(fixture, INTERLEAVE, v); \
	MODE_VARIANTS(fixture, WEIGHTED_INTERLEAVE, v); \
	MODE_VARIANTS(fixture, PREFERRED, v); \
	MODE_VARIANTS(fixture, PREFERRED_MANY, v)

#endif
