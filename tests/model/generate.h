/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Random operation sequences for the model, reproducible from a seed: the
 * same seed and topology give the same sequence on any machine.
 */
#ifndef NUMAPOL_GENERATE_H
#define NUMAPOL_GENERATE_H

#include <stdint.h>

#include "model.h"

/* The seed of sequence @index of a run seeded with @seed. */
uint64_t sequence_seed(uint64_t seed, unsigned long index);

/* Fill ops[0 .. len) from @seed; len is at most MAX_OPS. */
void generate_sequence(uint64_t seed, const struct topology *topo, int len,
		       struct op *ops);

#endif
