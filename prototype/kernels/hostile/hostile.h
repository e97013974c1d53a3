/* SPDX-License-Identifier: GPL-2.0 */
/* What the hostile kernel's files share. */
#ifndef HOSTILE_H
#define HOSTILE_H

#include "mm.h"

/* One case: a HOSTILE case line, counted and, if got is not want, failed. */
void expect(const char *name, long want, long got);

/* registry.c: services aimed at Linux's tables in the module, and the registry. */
void hostile_registry_cases(void);

#endif /* HOSTILE_H */
