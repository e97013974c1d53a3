// SPDX-License-Identifier: GPL-2.0
/* crossing.c, which proc_sfi's Kbuild builds here without the store checks. */
#define CROSSING_ROUND	crossing_round_unchecked
#include "crossing.c"
