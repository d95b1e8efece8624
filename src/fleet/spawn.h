/*
 * Every device of a host at once: one process per device, each the kladder
 * binary itself, running the same command on its own device. A process per
 * device (not a thread) keeps each device's driver state, signal handling
 * and watchdog its own, exactly as in a run on one device.
 */
#ifndef KL_FLEET_SPAWN_H
#define KL_FLEET_SPAWN_H

#include "core/error.h"
#include "fleet/fleet.h"

/*
 * Runs args (args[0]: the program, NULL-terminated) once per member, all at
 * once, each with "--device SPEC --format json --output FILE --quiet"
 * appended and KLADDER_FLEET_MEMBER=1 in its environment; standard output
 * and error go to a file each. Waits for all; a stop request
 * (kl_stop_requested) is passed on to the members as SIGTERM, so each writes
 * the rows it has. Fills each member's exit code, json and log (malloc'd:
 * kl_fleet_spawn_free). KL_ERR_RUNTIME when a process cannot be started.
 */
enum kl_status kl_fleet_spawn(char *const *args, struct kl_fleet_member *m, int n,
                              struct kl_err *e);

void kl_fleet_spawn_free(struct kl_fleet_member *m, int n);

/* This process's executable, for args[0] ("/proc/self/exe" resolved); 0 or -1. */
int kl_fleet_self(char *path, size_t n);

#endif /* KL_FLEET_SPAWN_H */
