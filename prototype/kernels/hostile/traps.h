/* SPDX-License-Identifier: GPL-2.0 */
/* traps.c: tenants' traps under races, kills and first runs. */
#ifndef HOSTILE_TRAPS_H
#define HOSTILE_TRAPS_H

/* Modes race, racekill, firstrun, calloop and ctxfree: see traps.c. */
bool traps_mode(const char *args);
long traps_main(const char *args);
long traps_ap_main(const char *args);
/* A tenant's FS base: loaded, reported, and never passed on. */
void fs_base_cases(void);

#endif /* HOSTILE_TRAPS_H */
