/* nd_limits.h: the bounds ndlua states once for both languages; nd.core.limits
 * (src/binding/lnd_init.c) hands them to Lua, whose names for them (cli.MAX_DEVICES,
 * search.MAX_GLOBAL_BATCH, search.MAX_THREADS, ...) read from it. */
#ifndef NDLUA_ND_LIMITS_H
#define NDLUA_ND_LIMITS_H

#include <stdint.h>

/* The most devices a run spans (dp x tp x pp x cp), and so the most any one
 * degree or shard takes: 2^20 (nd.core.limits.devices). */
#define ND_MAX_DEVICES ((int64_t)1 << 20)

/* The largest global batch a search takes, in sequences: 2^30
 * (nd.core.limits.global_batch). */
#define ND_MAX_GLOBAL_BATCH ((int64_t)1 << 30)

/* The most threads a search runs on (nd.core.limits.threads). */
#define ND_MAX_THREADS 1024

/* The most memory a device holds, in bytes: 2^50, 1 PiB
 * (nd.core.limits.device_memory). */
#define ND_MAX_DEVICE_MEMORY ((int64_t)1 << 50)

/* The most layers a model stacks (and a run's per-stage count names):
 * 100000 (nd.core.limits.layers). */
#define ND_MAX_LAYERS 100000

/* The most virtual pipeline chunks a stage holds (nd.core.limits.vpp). */
#define ND_MAX_VPP 64

/* The longest sequence, in tokens: 2^31. */
#define ND_MAX_TOKENS ((int64_t)1 << 31)

/* The most sequences a run's batch holds (micro-batch size, count, global
 * batch): 2^24 (nd.core.limits.batch). */
#define ND_MAX_BATCH ((int64_t)1 << 24)

#endif
